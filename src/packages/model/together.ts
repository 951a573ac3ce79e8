import { asError, gather } from '../../platform/kit/batch.js'

/**
 * Concurrent writes written together: the items handed in during one turn go to `write` as one
 * statement with one commit, instead of a statement and a commit (a WAL flush) each. `write`
 * returns the ids it wrote; an item it skipped (a tracking number taken, a package that changed
 * since it was read) answers false. An id goes at most once into a statement: a later item for
 * the same id is written alone after it. When the database refused the statement
 * (`refused(error)`: nothing of it was written), each item is written alone, so that each gets its
 * own answer: one bad item never fails the others. Any other failure (the connection lost, the
 * commit's outcome unknown) is every item's answer: writing them again could write them twice.
 */
export function writeTogether<T>(
  write: (items: readonly T[]) => Promise<Set<string>>,
  idOf: (item: T) => string,
  refused: (e: unknown) => boolean,
): (item: T) => Promise<boolean> {
  const alone = (item: T) => write([item]).then((ids) => ids.has(idOf(item)), asError)
  return gather<T, boolean>(async (items) => {
    if (items.length === 1) return [await alone(items[0]!)]
    const seen = new Set<string>()
    const together: number[] = []
    const later: number[] = []
    items.forEach((item, k) => (seen.has(idOf(item)) ? later : (seen.add(idOf(item)), together)).push(k))
    const answers: Array<boolean | Error> = []
    try {
      const written = await write(together.map((k) => items[k]!))
      for (const k of together) answers[k] = written.has(idOf(items[k]!))
    } catch (e) {
      if (!refused(e)) return items.map(() => asError(e))
      await Promise.all(together.map(async (k) => (answers[k] = await alone(items[k]!))))
    }
    for (const k of later) answers[k] = await alone(items[k]!)
    return answers
  })
}
