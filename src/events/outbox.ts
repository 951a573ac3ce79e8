import type { Executor } from '../platform/db/transaction.js'
import { nextSequences } from './store.js'
import type { WebhookVariant } from './variants.js'
import { inStatementChunks } from '../platform/db/statement-limits.js'

export interface OutboxEvent {
  eventId: string
  subId: string
  packageId: string
  variant: WebhookVariant
  eventName: string
  /** Per package, across both variants: orders one package's events. */
  sequence: number
  occurredAt: Date
  data: Record<string, unknown>
}

/**
 * The transactional outbox (DESIGN.md): events are written by the same transaction as the change
 * they describe, so a committed change always has its events and a rolled-back one never does.
 * The webhook fan-out reads rows where dispatched_at is null.
 */
export async function enqueueEvents(trx: Executor, events: OutboxEvent[]): Promise<void> {
  if (events.length === 0) return
  await inStatementChunks(eventRows(events), (rows) => trx.insertInto('package_events').values(rows).execute())
}

/** The outbox rows of `events`, for writers that insert them within a larger statement. */
export function eventRows(events: OutboxEvent[]) {
  return events.map((e) => ({
    event_id: e.eventId,
    sub_id: e.subId,
    package_id: e.packageId,
    variant: e.variant,
    event_name: e.eventName,
    sequence: e.sequence,
    occurred_at: e.occurredAt,
    data: JSON.stringify(e.data),
  }))
}

/**
 * Events about packages that change no package (the recipient notifications): each takes the next
 * sequence of its package under the package's row lock, as the locker jobs' events do.
 */
export async function enqueueUnsequenced(trx: Executor, events: Array<Omit<OutboxEvent, 'sequence'>>): Promise<void> {
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
      if (first === undefined) return [] // the package is gone: nothing to order it after
      const k = used.get(e.packageId) ?? 0
      used.set(e.packageId, k + 1)
      return [{ ...e, sequence: first + k, data: { ...e.data, sequence: first + k } }]
    }),
  )
}
