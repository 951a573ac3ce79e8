import { describe, expect, it } from 'vitest'
import { writeTogether } from '../../src/packages/model/together.js'

type Item = { id: string; number: string; bad?: boolean; lost?: boolean }

/** What the database says when it refuses a statement (a SQLSTATE), as pg and PGlite report it. */
class Refused extends Error {
  severity = 'ERROR'
  code = '23503'
}
const refused = (e: unknown) => e instanceof Refused

/** A fake statement: all or nothing, skipping a number already taken (before or earlier in the batch). */
function store(taken: string[] = []) {
  const written: string[] = []
  const calls: string[][] = []
  const write = async (items: readonly Item[]) => {
    calls.push(items.map((i) => i.id))
    if (items.some((i) => i.lost)) {
      // The statement committed, but its answer never came back.
      written.push(...items.map((i) => i.id))
      throw new Error('Connection terminated unexpectedly')
    }
    if (items.some((i) => i.bad)) throw new Refused('violates a constraint')
    const numbers = new Set(taken)
    const ids = new Set<string>()
    for (const i of items) {
      if (numbers.has(i.number)) continue
      numbers.add(i.number)
      ids.add(i.id)
    }
    taken.push(...numbers)
    written.push(...ids)
    return ids
  }
  return { written, calls, add: writeTogether<Item>(write, (i) => i.id, refused) }
}

describe('writeTogether', () => {
  it('writes the adds of one turn as one statement', async () => {
    const { add, calls, written } = store()
    expect(
      await Promise.all([add({ id: 'a', number: '1' }), add({ id: 'b', number: '2' }), add({ id: 'c', number: '3' })]),
    ).toEqual([true, true, true])
    expect(calls).toEqual([['a', 'b', 'c']])
    expect(written).toEqual(['a', 'b', 'c'])
  })

  it('answers false to an add whose number is taken, before or in the same statement', async () => {
    const { add } = store(['9'])
    expect(
      await Promise.all([add({ id: 'a', number: '1' }), add({ id: 'b', number: '1' }), add({ id: 'c', number: '9' })]),
    ).toEqual([true, false, false])
  })

  it('writes each add alone when the statement fails, so one bad add fails only itself', async () => {
    const { add, calls, written } = store()
    const results = await Promise.allSettled([
      add({ id: 'a', number: '1' }),
      add({ id: 'bad', number: '2', bad: true }),
      add({ id: 'c', number: '3' }),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(results[1]).toMatchObject({ reason: { message: 'violates a constraint' } })
    expect(calls).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']])
    expect(written).toEqual(['a', 'c'])
  })

  it('never writes an item again when the outcome of its statement is unknown (the connection lost): each gets that error', async () => {
    const { add, calls, written } = store()
    const results = await Promise.allSettled([
      add({ id: 'a', number: '1' }),
      add({ id: 'b', number: '2', lost: true }),
      add({ id: 'c', number: '3' }),
    ])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(results[0]).toMatchObject({ reason: { message: 'Connection terminated unexpectedly' } })
    expect(calls).toEqual([['a', 'b', 'c']])
    expect(written).toEqual(['a', 'b', 'c'])
  })

  it('writes a lone add alone, and reports its failure', async () => {
    const { add, calls } = store()
    await expect(add({ id: 'bad', number: '1', bad: true })).rejects.toThrow('violates a constraint')
    expect(calls).toEqual([['bad']])
  })
})

describe('writeTogether with two items for one id', () => {
  /** A fake guarded update: each id is at a version; an item writes only from the version it was read at. */
  function versions() {
    const at = new Map<string, number>([
      ['p', 1],
      ['q', 1],
    ])
    const calls: string[][] = []
    const write = async (items: ReadonlyArray<{ id: string; from: number }>) => {
      calls.push(items.map((i) => `${i.id}@${i.from}`))
      if (new Set(items.map((i) => i.id)).size !== items.length)
        throw new Error('one row updated twice in one statement')
      const ids = new Set<string>()
      for (const i of items)
        if (at.get(i.id) === i.from) {
          at.set(i.id, i.from + 1)
          ids.add(i.id)
        }
      return ids
    }
    return { at, calls, update: writeTogether(write, (i) => i.id, refused) }
  }

  it('writes the first in the statement and the second alone after it, where its version no longer holds', async () => {
    const { at, calls, update } = versions()
    expect(
      await Promise.all([update({ id: 'p', from: 1 }), update({ id: 'q', from: 1 }), update({ id: 'p', from: 1 })]),
    ).toEqual([true, true, false])
    expect(calls).toEqual([['p@1', 'q@1'], ['p@1']])
    expect(at).toEqual(
      new Map([
        ['p', 2],
        ['q', 2],
      ]),
    )
  })

  it('keeps the answers in the order the items came', async () => {
    const { update } = versions()
    expect(
      await Promise.all([update({ id: 'p', from: 1 }), update({ id: 'p', from: 2 }), update({ id: 'q', from: 7 })]),
    ).toEqual([true, true, false])
  })
})
