import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'

/** Independent 256-bit keys derived from the master secret, one per purpose (RFC 5869). */
export function deriveKey(masterSecret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(masterSecret, 'utf8'), Buffer.alloc(0), `mailroom:${purpose}`, 32))
}

export function hmacHex(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('hex')
}

export function constantTimeEqualHex(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'hex')
  const bb = Buffer.from(b, 'hex')
  // Equal length is required by timingSafeEqual; both are SHA-256 digests, so a length mismatch
  // only happens on corrupt data and reveals nothing about the secret.
  return ab.length === bb.length && timingSafeEqual(ab, bb)
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

/**
 * AES-256-GCM sealing for secrets at rest. `aad` binds the ciphertext to its row (a sealed value
 * copied into another row fails to open). Layout: v1.<iv>.<tag>.<ciphertext>, base64url.
 */
export function seal(key: Buffer, plaintext: string, aad: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(aad, 'utf8'))
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.')
}

export function open(key: Buffer, sealed: string, aad: string): string {
  const [version, iv, tag, ct] = sealed.split('.')
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unrecognised sealed value')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAAD(Buffer.from(aad, 'utf8'))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8')
}
