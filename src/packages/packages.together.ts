import { asError, gather } from '../shared/batch.js'

/**
 * Concurrent adds written together: the items handed in during one turn go to `write` as one
 * statement with one commit, instead of a statement and a commit (a WAL flush) each. `write`
 * returns the ids it wrote; an item it skipped (its tracking number taken) answers false. When the
 * statement fails, nothing of it was written, and each item is written alone, so that each gets its
 * own answer: one bad add never fails the others.
 */
export function writeTogether<T>(write: (items: readonly T[]) => Promise<Set<string>>, idOf: (item: T) => string): (item: T) => Promise<boolean> {
  const alone = async (item: T) => (await write([item])).has(idOf(item))
  return gather<T, boolean>(async (items) => {
    if (items.length === 1) return [await alone(items[0]!).catch(asError)]
    try {
      const written = await write(items)
      return items.map((i) => written.has(idOf(i)))
    } catch {
      return Promise.all(items.map((i) => alone(i).catch(asError)))
    }
  })
}
