import { describe, expect, it } from 'vitest'
import { writeTogether } from '../../src/packages/packages.together.js'

type Item = { id: string; number: string; bad?: boolean }

/** A fake statement: all or nothing, skipping a number already taken (before or earlier in the batch). */
function store(taken: string[] = []) {
  const written: string[] = []
  const calls: string[][] = []
  const write = async (items: readonly Item[]) => {
    calls.push(items.map((i) => i.id))
    if (items.some((i) => i.bad)) throw new Error('violates a constraint')
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
  return { written, calls, add: writeTogether<Item>(write, (i) => i.id) }
}

describe('writeTogether', () => {
  it('writes the adds of one turn as one statement', async () => {
    const { add, calls, written } = store()
    expect(await Promise.all([add({ id: 'a', number: '1' }), add({ id: 'b', number: '2' }), add({ id: 'c', number: '3' })])).toEqual([true, true, true])
    expect(calls).toEqual([['a', 'b', 'c']])
    expect(written).toEqual(['a', 'b', 'c'])
  })

  it('answers false to an add whose number is taken, before or in the same statement', async () => {
    const { add } = store(['9'])
    expect(await Promise.all([add({ id: 'a', number: '1' }), add({ id: 'b', number: '1' }), add({ id: 'c', number: '9' })])).toEqual([true, false, false])
  })

  it('writes each add alone when the statement fails, so one bad add fails only itself', async () => {
    const { add, calls, written } = store()
    const results = await Promise.allSettled([add({ id: 'a', number: '1' }), add({ id: 'bad', number: '2', bad: true }), add({ id: 'c', number: '3' })])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(results[1]).toMatchObject({ reason: { message: 'violates a constraint' } })
    expect(calls).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']])
    expect(written).toEqual(['a', 'c'])
  })

  it('writes a lone add alone, and reports its failure', async () => {
    const { add, calls } = store()
    await expect(add({ id: 'bad', number: '1', bad: true })).rejects.toThrow('violates a constraint')
    expect(calls).toEqual([['bad']])
  })
})
