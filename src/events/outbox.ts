import type { Executor } from '../platform/db/transaction.js'
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
