import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * The unsubscribe link's token: the subscription and contact it stands for, signed with a key
 * derived from the master secret (context.ts), so a link cannot be forged for another contact.
 * It does not expire: RFC 8058 links are followed long after the email was sent.
 */
export function unsubscribeToken(key: Buffer, subId: string, contactId: string): string {
  const body = Buffer.from(JSON.stringify([subId, contactId]), 'utf8').toString('base64url')
  return `${body}.${mac(key, body)}`
}

/** The subscription and contact of a valid token; undefined for anything else. */
export function readUnsubscribeToken(key: Buffer, token: string): { subId: string; contactId: string } | undefined {
  const [body, sig, ...rest] = token.split('.')
  if (!body || !sig || rest.length > 0) return undefined
  // The texts are compared, not their decoded bytes: base64url's last character has unused bits.
  const expected = Buffer.from(mac(key, body), 'utf8')
  const given = Buffer.from(sig, 'utf8')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  try {
    const v = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string')
      return { subId: v[0], contactId: v[1] }
  } catch {
    // not JSON: not ours
  }
  return undefined
}

function mac(key: Buffer, body: string): string {
  return createHmac('sha256', key).update(`unsubscribe:${body}`, 'utf8').digest('base64url')
}
