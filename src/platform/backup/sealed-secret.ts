import { randomBytes, scryptSync } from 'node:crypto'
import { open, seal } from '../kit/crypto.js'

// The master secret inside a backup, sealed with the operator's passphrase: scrypt (RFC 7914)
// derives the key, AES-256-GCM seals (platform/kit/crypto.ts). The parameters are stored with it, so
// they can grow later without breaking older backups.

const AAD = 'mailroom backup: master secret'

interface SealedSecret {
  kdf: 'scrypt'
  N: number
  r: number
  p: number
  salt: string
  sealed: string
}

/** The passphrase does not open the sealed secret (or the file was changed). */
export class WrongPassphraseError extends Error {}

const keyOf = (passphrase: string, s: Pick<SealedSecret, 'N' | 'r' | 'p' | 'salt'>) =>
  scryptSync(passphrase.normalize('NFC'), Buffer.from(s.salt, 'base64url'), 32, {
    N: s.N,
    r: s.r,
    p: s.p,
    maxmem: 256 * s.N * s.r,
  })

export function sealSecret(secret: string, passphrase: string): string {
  const params = { N: 2 ** 17, r: 8, p: 1, salt: randomBytes(16).toString('base64url') }
  const out: SealedSecret = { kdf: 'scrypt', ...params, sealed: seal(keyOf(passphrase, params), secret, AAD) }
  return `${JSON.stringify(out)}\n`
}

export function openSecret(text: string, passphrase: string): string {
  let s: SealedSecret
  try {
    s = JSON.parse(text) as SealedSecret
  } catch {
    throw new WrongPassphraseError('the sealed master secret in the backup is damaged')
  }
  try {
    return open(keyOf(passphrase, s), s.sealed, AAD)
  } catch {
    throw new WrongPassphraseError('the passphrase does not open the master secret sealed in the backup')
  }
}
