import { open, seal } from '../../platform/kit/crypto.js'

/**
 * What a browser carries between the start of a single sign-on and its callback: the subscription,
 * and the state, nonce and PKCE verifier the callback must match. Sealed (AES-256-GCM with a key of
 * its own), so the browser can neither read nor change it, and short-lived; the cookie holding it is
 * HttpOnly and scoped to the callback. A callback without it, or past its time, signs no one in.
 */
export interface SsoFlow {
  subId: string
  state: string
  nonce: string
  codeVerifier: string
  /** The email typed on the sign-in page (login_hint); the provider's answer decides who signs in. */
  email: string
}

export const FLOW_SECONDS = 600
const AAD = 'mailroom:console-sso-flow'

export function sealFlow(key: Buffer, flow: SsoFlow, now: number): string {
  return seal(key, JSON.stringify({ ...flow, expiresAt: now + FLOW_SECONDS * 1000 }), AAD)
}

/** The flow of a cookie value, undefined when it is missing, forged, damaged or expired. */
export function openFlow(key: Buffer, value: string | undefined, now: number): SsoFlow | undefined {
  if (!value || value.length > 2000) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(open(key, value, AAD))
  } catch {
    return undefined
  }
  const f = parsed as Partial<SsoFlow & { expiresAt: number }>
  if (typeof f.expiresAt !== 'number' || now >= f.expiresAt) return undefined
  if (![f.subId, f.state, f.nonce, f.codeVerifier, f.email].every((x) => typeof x === 'string')) return undefined
  return { subId: f.subId!, state: f.state!, nonce: f.nonce!, codeVerifier: f.codeVerifier!, email: f.email! }
}
