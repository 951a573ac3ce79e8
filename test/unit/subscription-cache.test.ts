import { describe, expect, it } from 'vitest'
import { ManualClock } from '../../src/platform/kit/clock.js'
import { SubscriptionCache } from '../../src/platform/cache/subscription-cache.js'

function setup(ttlMs = 5_000, max?: number) {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'))
  let loads = 0
  const cache = new SubscriptionCache<string>(clock, ttlMs, max)
  const load = (value: string) => async () => {
    loads++
    return value
  }
  return { clock, cache, load, loads: () => loads }
}

describe('SubscriptionCache', () => {
  it('answers from memory until the time to live has passed, then loads again', async () => {
    const { clock, cache, load, loads } = setup()
    expect(await cache.get('s1', load('a'))).toBe('a')
    clock.advance(4_999)
    expect(await cache.get('s1', load('b'))).toBe('a')
    expect(loads()).toBe(1)
    clock.advance(1)
    expect(await cache.get('s1', load('b'))).toBe('b')
    expect(loads()).toBe(2)
  })

  it('keeps subscriptions apart', async () => {
    const { cache, load } = setup()
    await cache.get('s1', load('one'))
    expect(await cache.get('s2', load('two'))).toBe('two')
    expect(cache.peek('s1')).toBe('one')
    expect(cache.peek('s2')).toBe('two')
  })

  it('forgets a subscription at once when it changes, and only that one', async () => {
    const { cache, load } = setup()
    await cache.get('s1', load('old'))
    await cache.get('s2', load('other'))
    cache.invalidate('s1')
    expect(cache.peek('s1')).toBeUndefined()
    expect(await cache.get('s1', load('new'))).toBe('new')
    expect(cache.peek('s2')).toBe('other')
  })

  it('does not keep a load that was running when the subscription changed', async () => {
    const { cache } = setup()
    let finish!: (v: string) => void
    const pending = cache.get('s1', () => new Promise<string>((resolve) => (finish = resolve)))
    cache.invalidate('s1')
    finish('read before the change')
    // The caller still gets what it read (it asked before the change); nobody after it does.
    expect(await pending).toBe('read before the change')
    expect(cache.peek('s1')).toBeUndefined()
  })

  it('store keeps a value only under the generation it was loaded in', () => {
    const { cache } = setup()
    const before = cache.generation('s1')
    cache.invalidate('s1')
    cache.store('s1', 'stale', before)
    expect(cache.peek('s1')).toBeUndefined()
    cache.store('s1', 'fresh', cache.generation('s1'))
    expect(cache.peek('s1')).toBe('fresh')
  })

  it('ages an entry from when its load started, not when it finished', async () => {
    const { clock, cache } = setup(1_000)
    await cache.get('s1', async () => {
      clock.advance(900)
      return 'slow'
    })
    clock.advance(100)
    expect(cache.peek('s1')).toBeUndefined()
  })

  it('with a time to live of 0 never remembers', async () => {
    const { cache, load, loads } = setup(0)
    await cache.get('s1', load('a'))
    await cache.get('s1', load('a'))
    expect(loads()).toBe(2)
    expect(cache.peek('s1')).toBeUndefined()
  })

  it('holds at most maxEntries subscriptions, dropping the oldest', async () => {
    const { cache, load } = setup(5_000, 2)
    await cache.get('s1', load('1'))
    await cache.get('s2', load('2'))
    await cache.get('s3', load('3'))
    expect(cache.peek('s1')).toBeUndefined()
    expect(cache.peek('s2')).toBe('2')
    expect(cache.peek('s3')).toBe('3')
  })
})
