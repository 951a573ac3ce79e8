import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FailureLimiter } from '../../src/auth/failure-limiter.js'
import { parseBasicAuth } from '../../src/http/basic-auth.js'
import { ManualClock } from '../../src/shared/clock.js'
import { constantTimeEqualHex, deriveKey, hmacHex, open, seal } from '../../src/shared/crypto.js'

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
    expect(parseBasicAuth(`basic   ${Buffer.from('a:b').toString('base64')}`)).toEqual({ clientId: 'a', clientSecret: 'b' })
  })
  it('refuses anything else', () => {
    for (const h of [undefined, '', 'Basic', 'Bearer abc', enc('nocolon'), enc(':secret'), enc('id:'), enc('%zz:x'), 'Basic ***']) {
      expect(parseBasicAuth(h)).toBeUndefined()
    }
  })
})

describe('FailureLimiter', () => {
  it('blocks a key at the limit until its window ends, and forgets it after', () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = new FailureLimiter(clock, 3, 60)
    l.recordFailure('k')
    l.recordFailure('k')
    expect(l.retryAfter('k')).toBe(0)
    l.recordFailure('k')
    expect(l.retryAfter('k')).toBe(60)
    clock.advance(30_500)
    expect(l.retryAfter('k')).toBe(30)
    expect(l.retryAfter('other')).toBe(0)
    clock.advance(30_000)
    expect(l.retryAfter('k')).toBe(0)
    l.recordFailure('k')
    expect(l.retryAfter('k')).toBe(0)
  })
  it('resets on success and stays bounded in memory', () => {
    const clock = new ManualClock()
    const l = new FailureLimiter(clock, 1, 60, 10)
    l.recordFailure('a')
    l.reset('a')
    expect(l.retryAfter('a')).toBe(0)
    for (let i = 0; i < 100; i++) l.recordFailure(`k${i}`)
    expect(l.retryAfter('k99')).toBe(60)
    expect(l.retryAfter('k0')).toBe(0)
  })
})
