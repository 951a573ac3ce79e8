import type { Executor } from '../../platform/db/transaction.js'
import { enqueueEvents, type OutboxEvent } from '../../events/index.js'
import { nextSequences } from '../store/sequences.js'

/**
 * Events about packages that change no package (the recipient notifications' outcomes), written to
 * the outbox in the caller's transaction: each takes the next sequence of its package, as the
 * package's own changes do. A package that is gone has nothing to order them after: left out.
 */
export async function appendPackageEvents(
  trx: Executor,
  events: ReadonlyArray<Omit<OutboxEvent, 'sequence'>>,
): Promise<void> {
  if (events.length === 0) return
  const perPackage = new Map<string, number>()
  for (const e of events) perPackage.set(e.packageId, (perPackage.get(e.packageId) ?? 0) + 1)
  // One statement per distinct count (usually one: an event per package).
  const byCount = new Map<number, string[]>()
  for (const [packageId, count] of perPackage) byCount.set(count, [...(byCount.get(count) ?? []), packageId])
  const firsts = new Map<string, number>()
  for (const [count, packageIds] of byCount)
    for (const [id, first] of await nextSequences(trx, packageIds, count)) firsts.set(id, first)
  const used = new Map<string, number>()
  await enqueueEvents(
    trx,
    events.flatMap((e) => {
      const first = firsts.get(e.packageId)
      if (first === undefined) return []
      const k = used.get(e.packageId) ?? 0
      used.set(e.packageId, k + 1)
      return [{ ...e, sequence: first + k, data: { ...e.data, sequence: first + k } }]
    }),
  )
}
