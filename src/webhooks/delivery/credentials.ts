import { open, seal } from '../../platform/kit/crypto.js'
import type { AuthType } from '../store/tables.js'

/**
 * Secrets of a configuration at rest: the auth credential (apiKey, password or clientSecret) and
 * the signing secrets, each AES-256-GCM with the configuration id in the additional data, so a
 * sealed value copied into another row, or into another column of the same row, fails to open.
 */
export const SECRET_FIELD: Record<AuthType, 'apiKey' | 'password' | 'clientSecret' | undefined> = {
  custom: 'apiKey',
  basic: 'password',
  oauth2: 'clientSecret',
  none: undefined,
}

const MASK = '****'

/** `****` + the last four characters; secrets shorter than 8 characters show nothing of themselves. */
export function mask(secret: string): string {
  return secret.length >= 8 ? `${MASK}${secret.slice(-4)}` : MASK
}

/**
 * Whether `value` has the shape of a mask (`****`, or `****` and four characters): what a response
 * showed, not a secret. Only the mask of the stored secret keeps it; another mask-shaped value is
 * refused rather than stored as the credential. A longer value that merely begins with `****` is a
 * secret like any other.
 */
export function looksMasked(value: string): boolean {
  return value === MASK || (value.length === MASK.length + 4 && value.startsWith(MASK))
}

export function sealAuthSecret(key: Buffer, configId: string, secret: string): string {
  return seal(key, secret, configId)
}

export function openAuthSecret(key: Buffer, configId: string, sealed: string): string {
  return open(key, sealed, configId)
}

export function sealSigningSecret(
  key: Buffer,
  configId: string,
  secret: string,
  which: 'current' | 'previous',
): string {
  return seal(key, secret, `${configId}:signing:${which}`)
}

export function openSigningSecret(
  key: Buffer,
  configId: string,
  sealed: string,
  which: 'current' | 'previous',
): string {
  return open(key, sealed, `${configId}:signing:${which}`)
}
