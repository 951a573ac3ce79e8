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
  const make = (clock: ManualClock, maxKeys?: number) =>
    new MemoryFailureLimiter(clock, {
      limit: 3,
      windowSeconds: 60,
      addressFactor: 2,
      clientFactor: 4,
      maxBackoffFactor: 4,
      maxKeys,
    })
  const failTimes = (l: MemoryFailureLimiter, n: number, id: string | undefined, address: string) => {
    for (let i = 0; i < n; i++) l.recordFailure(id, address)
  }

  it('locks a client id only from the address that failed, until the window ends, and forgets it after', () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = make(clock)
    failTimes(l, 2, 'real', '198.51.100.7')
    expect(l.retryAfter('real', '198.51.100.7')).toBe(0)
    l.recordFailure('real', '198.51.100.7')
    expect(l.retryAfter('real', '198.51.100.7')).toBe(60)
    // The real client, from its own address, is not locked out by the stranger.
    expect(l.retryAfter('real', '203.0.113.1')).toBe(0)
    clock.advance(30_500)
    expect(l.retryAfter('real', '198.51.100.7')).toBe(30)
    clock.advance(30_000)
    expect(l.retryAfter('real', '198.51.100.7')).toBe(0)
  })

  it('doubles each further lock of the same key, up to the cap, and starts afresh after a quiet spell', () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = make(clock)
    const locks: number[] = []
    for (let i = 0; i < 4; i++) {
      failTimes(l, 3, 'id', 'a')
      locks.push(l.retryAfter('id', 'a'))
      clock.advance(locks[i]! * 1000)
    }
    expect(locks).toEqual([60, 120, 240, 240])
    clock.advance(480_000)
    failTimes(l, 3, 'id', 'a')
    expect(l.retryAfter('id', 'a')).toBe(60)
  })

  it('bounds one address across client ids, and one client id across addresses with a much higher ceiling', () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = make(clock)
    for (let i = 0; i < 3; i++) failTimes(l, 2, `guess${i}`, 'one-address')
    expect(l.retryAfter('anything', 'one-address')).toBe(60)
    expect(l.retryAfter(undefined, 'one-address')).toBe(60)
    expect(l.retryAfter('anything', 'another-address')).toBe(0)
    // 3 × 4 = 12 failures of one id from 12 addresses reach its ceiling: then every address waits.
    for (let i = 0; i < 11; i++) l.recordFailure('target', `bot${i}`)
    expect(l.retryAfter('target', 'owner')).toBe(0)
    l.recordFailure('target', 'bot11')
    expect(l.retryAfter('target', 'owner')).toBe(60)
  })

  it('starts the pair afresh on success, but not the address', () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = make(clock)
    failTimes(l, 2, 'id', 'a')
    l.recordSuccess('id', 'a')
    failTimes(l, 2, 'id', 'a')
    expect(l.retryAfter('id', 'a')).toBe(0)
    // Six failures at this address in all: its limit (3 × 2) holds although the pair was reset.
    failTimes(l, 2, 'other', 'a')
    expect(l.retryAfter('other2', 'a')).toBe(60)
  })

  it('stays bounded in memory under a flood of addresses and ids, dropping the least recently failed', () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const l = make(clock, 50)
    failTimes(l, 3, 'victim-guess', 'early')
    for (let i = 0; i < 10_000; i++) l.recordFailure(`x${'y'.repeat(i % 300)}${i}`, `10.0.${i >> 8}.${i & 255}`)
    const sizes = l.sizes()
    expect(Math.max(sizes.pairs, sizes.addresses, sizes.clients)).toBeLessThanOrEqual(50)
    failTimes(l, 3, 'late', 'recent')
    expect(l.retryAfter('late', 'recent')).toBe(60)
    // Expired entries go too: after the windows, new failures do not keep the old ones.
    clock.advance(10 * 60_000)
    for (let i = 0; i < 40; i++) l.recordFailure('z', 'one')
    expect(l.sizes()).toEqual({ pairs: 1, addresses: 1, clients: 1 })
  })
})
