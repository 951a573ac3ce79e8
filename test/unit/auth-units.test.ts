import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MemoryFailureLimiter } from '../../src/access/model/failure-limiter.js'
import { parseBasicAuth } from '../../src/access/model/basic-auth.js'
import { ManualClock } from '../../src/platform/kit/clock.js'
import { constantTimeEqualHex, deriveKey, hmacHex, open, seal } from '../../src/platform/kit/crypto.js'

describe('sealing', () => {
  const key = deriveKey('m'.repeat(40), 'test')
  it('round-trips any text', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (text, aad) => open(key, seal(key, text, aad), aad) === text))
  })
  it('refuses another row, another key, and any tampering', () => {
    const sealed = seal(key, 'secret', 'row-1')
    expect(() => open(key, sealed, 'row-2')).toThrow()
    expect(() => open(deriveKey('n'.repeat(40), 'test'), sealed, 'row-1')).toThrow()
    const parts = sealed.split('.')
    parts[3] = parts[3]!.slice(0, -1) + (parts[3]!.endsWith('A') ? 'B' : 'A')
    expect(() => open(key, parts.join('.'), 'row-1')).toThrow()
  })
  it('derives distinct keys per purpose', () => {
    expect(deriveKey('m'.repeat(40), 'a').equals(deriveKey('m'.repeat(40), 'b'))).toBe(false)
  })
})

describe('keyed secret hash', () => {
  it('compares equal digests only', () => {
    const k = deriveKey('m'.repeat(40), 'pepper')
    expect(constantTimeEqualHex(hmacHex(k, 'a'), hmacHex(k, 'a'))).toBe(true)
    expect(constantTimeEqualHex(hmacHex(k, 'a'), hmacHex(k, 'b'))).toBe(false)
    expect(constantTimeEqualHex(hmacHex(k, 'a'), 'abcd')).toBe(false)
  })
})

describe('parseBasicAuth', () => {
  const enc = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`
  it('reads id and secret, form-decoded (RFC 6749 §2.3.1)', () => {
    expect(parseBasicAuth(enc('id:se:cret'))).toEqual({ clientId: 'id', clientSecret: 'se:cret' })
    expect(parseBasicAuth(enc('my%20id:p%2Bw+d'))).toEqual({ clientId: 'my id', clientSecret: 'p+w d' })
    expect(parseBasicAuth(`basic   ${Buffer.from('a:b').toString('base64')}`)).toEqual({
      clientId: 'a',
      clientSecret: 'b',
    })
  })
  it('refuses anything else', () => {
    for (const h of [
      undefined,
      '',
      'Basic',
      'Bearer abc',
      enc('nocolon'),
      enc(':secret'),
      enc('id:'),
      enc('%zz:x'),
      'Basic ***',
    ]) {
      expect(parseBasicAuth(h)).toBeUndefined()
    }
  })
})

describe('MemoryFailureLimiter', () => {
  // Its rules are tested beside the shared one's (test/auth/failure-limiter.test.ts); here, its memory.
  const make = (clock: ManualClock, maxKeys?: number) =>
    new MemoryFailureLimiter(clock, { limit: 3, windowSeconds: 60, addressFactor: 2, clientFactor: 4, maxKeys })
  const fail = (l: MemoryFailureLimiter, id: string | undefined, address: string) => {
    const a = l.admit({ identity: id, address })
    if (a.admitted) l.failed(a.ticket)
  }
  const retryAfter = (l: MemoryFailureLimiter, id: string, address: string) => {
    const a = l.admit({ identity: id, address })
    if (!a.admitted) return a.retryAfterSeconds
    l.release(a.ticket)
    return 0
  }

  it('stays bounded in memory under a flood of addresses and ids, dropping the least recently counted', () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = make(clock, 50)
    for (let i = 0; i < 10_000; i++) fail(l, `x${'y'.repeat(i % 300)}${i}`, `10.0.${i >> 8}.${i & 255}`)
    expect(l.size).toBeLessThanOrEqual(51)
    for (let i = 0; i < 3; i++) fail(l, 'late', 'recent')
    expect(retryAfter(l, 'late', 'recent')).toBe(60)
    // Expired entries go too: after the windows, new attempts do not keep the old ones.
    clock.advance(10 * 60_000)
    for (let i = 0; i < 40; i++) expect(retryAfter(l, 'z', 'one')).toBe(0)
    expect(l.size).toBeLessThanOrEqual(3)
  })
})
