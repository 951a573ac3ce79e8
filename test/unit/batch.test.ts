import { describe, expect, it } from 'vitest'
import { batchPerSubscription } from '../../src/platform/kit/batch.js'

/** A lookup over a fixed table that records every call it gets. */
function table(rows: Record<string, Record<string, string>>, fail: string[] = []) {
  const calls: Array<[string, string[]]> = []
  const lookup = async (subId: string, keys: string[]) => {
    calls.push([subId, keys])
    if (fail.includes(subId)) throw new Error(`lookup of ${subId} failed`)
    return new Map(keys.filter((k) => rows[subId]?.[k] !== undefined).map((k) => [k, rows[subId]![k]!]))
  }
  return { calls, lookup }
}

const nextTurn = () => new Promise((r) => setImmediate(r))

describe('batchPerSubscription', () => {
  it('makes the lookups asked in one turn as one call per subscription, each key once', async () => {
    const { calls, lookup } = table({ s1: { a: 'A1', b: 'B1' }, s2: { a: 'A2' } })
    const get = batchPerSubscription(lookup)
    const answers = await Promise.all([get('s1', 'a'), get('s2', 'a'), get('s1', 'b'), get('s1', 'a'), get('s2', 'b')])
    expect(answers).toEqual(['A1', 'A2', 'B1', 'A1', undefined])
    expect(calls).toEqual([
      ['s1', ['a', 'b']],
      ['s2', ['a', 'b']],
    ])
  })

  it("never answers one subscription with another's row", async () => {
    const { lookup } = table({ s1: { a: 'secret of s1' }, s2: {} })
    const get = batchPerSubscription(lookup)
    const [mine, theirs] = await Promise.all([get('s1', 'a'), get('s2', 'a')])
    expect(mine).toBe('secret of s1')
    expect(theirs).toBeUndefined()
  })

  it('fails only the callers of the subscription whose lookup failed', async () => {
    const { lookup } = table({ s1: { a: 'A1' }, s2: { a: 'A2' } }, ['s2'])
    const get = batchPerSubscription(lookup)
    const [ok, failed] = await Promise.allSettled([get('s1', 'a'), get('s2', 'a')])
    expect(ok).toEqual({ status: 'fulfilled', value: 'A1' })
    expect(failed).toMatchObject({ status: 'rejected', reason: { message: 'lookup of s2 failed' } })
  })

  it('remembers nothing: a later turn reads again', async () => {
    const rows = { s1: { a: 'old' } }
    const { calls, lookup } = table(rows)
    const get = batchPerSubscription(lookup)
    expect(await get('s1', 'a')).toBe('old')
    rows.s1.a = 'new'
    await nextTurn()
    expect(await get('s1', 'a')).toBe('new')
    expect(calls).toHaveLength(2)
  })

  it('splits a large turn into calls of at most maxBatchSize keys', async () => {
    const keys = Array.from({ length: 10 }, (_, i) => `k${i}`)
    const { calls, lookup } = table({ s1: Object.fromEntries(keys.map((k) => [k, k.toUpperCase()])) })
    const get = batchPerSubscription(lookup, 4)
    expect(await Promise.all(keys.map((k) => get('s1', k)))).toEqual(keys.map((k) => k.toUpperCase()))
    expect(calls.map(([, ks]) => ks.length)).toEqual([4, 4, 2])
  })
})
