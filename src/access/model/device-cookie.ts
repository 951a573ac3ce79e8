import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * OWASP's device cookie (Slow Brute Force Attack mitigation): a successful sign-in leaves the
 * browser a token signed for that email, and a later sign-in that presents it counts its failures
 * on the device alone, never on the email's global ceiling. So an attacker's failures from
 * anywhere cannot lock a user out of a browser they signed in from before; a stolen token gives
 * its holder the small per-device limit, and tokens cannot be made without the server's key.
 *
 * One cookie holds the tokens of the last few users of the browser (a shared desk tablet):
 * `issuedSeconds.nonce.mac` joined by `~`, the MAC over the normalised email, the time and the nonce.
 */
const MAX_ENTRIES = 5
export const DEVICE_COOKIE_DAYS = 180
const MAX_AGE_MS = DEVICE_COOKIE_DAYS * 86_400_000

const normalized = (email: string) => email.trim().toLowerCase()
const macOf = (key: Buffer, email: string, issued: string, nonce: string) =>
  createHmac('sha256', key)
    .update(`${normalized(email)}\n${issued}\n${nonce}`)
    .digest()
    .subarray(0, 16)

interface Entry {
  raw: string
  issued: number
  nonce: string
  mac: Buffer
}

function entriesOf(cookieValue: string | undefined): Entry[] {
  if (!cookieValue || cookieValue.length > 600) return []
  const out: Entry[] = []
  for (const raw of cookieValue.split('~').slice(0, MAX_ENTRIES)) {
    const m = /^(\d{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/.exec(raw)
    if (m) out.push({ raw, issued: Number(m[1]) * 1000, nonce: m[2]!, mac: Buffer.from(m[3]!, 'base64url') })
  }
  return out
}

const matches = (key: Buffer, e: Entry, email: string) => {
  const expected = macOf(key, email, String(e.issued / 1000), e.nonce)
  return e.mac.length === expected.length && timingSafeEqual(e.mac, expected)
}

/** The device id of a live token in the cookie signed for this email; undefined when there is none. */
export function deviceOf(key: Buffer, cookieValue: string | undefined, email: string, now: number): string | undefined {
  const e = entriesOf(cookieValue).find((x) => now - x.issued < MAX_AGE_MS && matches(key, x, email))
  return e?.nonce
}

/** The cookie after a successful sign-in: a new token for this email first, then the other users' live ones. */
export function withDevice(key: Buffer, cookieValue: string | undefined, email: string, now: number): string {
  const issued = String(Math.floor(now / 1000))
  const nonce = randomBytes(16).toString('base64url')
  const mine = `${issued}.${nonce}.${macOf(key, email, issued, nonce).toString('base64url')}`
  const others = entriesOf(cookieValue).filter((x) => now - x.issued < MAX_AGE_MS && !matches(key, x, email))
  return [mine, ...others.slice(0, MAX_ENTRIES - 1).map((x) => x.raw)].join('~')
}
