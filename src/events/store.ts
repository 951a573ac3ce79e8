import { sql } from 'kysely'
import type { Executor } from '../platform/db/transaction.js'
import type { WebhookVariant } from './variants.js'

// The package_events table (the outbox) as the webhook worker reads it.

export interface OutboxRow {
  event_id: string
  sub_id: string
  package_id: string
  variant: WebhookVariant
  event_name: string
  sequence: number
  occurred_at: Date
}

/**
 * The undispatched events one fan-out pass takes: the oldest `perSub` of each subscription that
 * has some, then the oldest `total` of those. A subscription with a huge backlog gets its share,
 * not the pass: the others' events are fanned out in the same pass whatever it holds. The
 * subscriptions are walked through the pending index (a loose index scan), one probe each.
 */
export async function pendingFairShare(
  db: Executor,
  perSub: number,
  total: number,
): Promise<Array<{ event_id: string; sub_id: string }>> {
  const { rows } = await sql<{ event_id: string; sub_id: string }>`
    with recursive subs(sub_id) as (
      (select sub_id from package_events where dispatched_at is null order by sub_id limit 1)
      union all
      select (select p.sub_id from package_events p
              where p.dispatched_at is null and p.sub_id > subs.sub_id order by p.sub_id limit 1)
      from subs where subs.sub_id is not null
    )
    select e.event_id, e.sub_id from subs
    cross join lateral (
      select p.event_id, p.sub_id, p.occurred_at, p.sequence from package_events p
      where p.sub_id = subs.sub_id and p.dispatched_at is null
      order by p.occurred_at, p.sequence limit ${perSub}) e
    where subs.sub_id is not null
    order by e.occurred_at, e.sequence
    limit ${total}`.execute(db)
  return rows
}

/**
 * Claims these events, if still undispatched and not held by another transaction, and marks them
 * dispatched: the caller's transaction inserts their deliveries, both commit together or neither.
 */
export async function claimEvents(trx: Executor, eventIds: string[], now: Date): Promise<OutboxRow[]> {
  if (eventIds.length === 0) return []
  const { rows } = await sql<OutboxRow>`
    update package_events set dispatched_at = ${now}::timestamptz
    where event_id in (
      select event_id from package_events
      where event_id = any(${eventIds}::text[]) and dispatched_at is null
      for update skip locked)
    returning event_id, sub_id, package_id, variant, event_name, sequence, occurred_at`.execute(trx)
  return rows.sort((x, y) => x.occurred_at.getTime() - y.occurred_at.getTime() || x.sequence - y.sequence)
}

/**
 * The still undispatched events of these packages (the caller's batch is already marked). An
 * event whose package has an earlier one among them (held by a concurrent fan-out, or past the
 * batch's end) must wait: fanned out first, it could be delivered before the earlier one.
 */
export async function undispatchedOf(
  trx: Executor,
  packageIds: string[],
): Promise<Array<{ package_id: string; event_id: string; sequence: number }>> {
  if (packageIds.length === 0) return []
  return trx
    .selectFrom('package_events')
    .select(['package_id', 'event_id', 'sequence'])
    .where(sql<boolean>`package_id = any(${packageIds}::text[])`)
    .where('dispatched_at', 'is', null)
    .execute()
}

/** Gives back events claimed but held for order: the next fan-out takes them again. */
export async function releaseEvents(trx: Executor, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return
  await trx
    .updateTable('package_events')
    .set({ dispatched_at: null })
    .where(sql<boolean>`event_id = any(${eventIds}::text[])`)
    .execute()
}

/**
 * The data of these events (what a delivery of each sends), by event id. Events never change once
 * written, so this read after a claim sees what the claim would have joined.
 */
export async function eventData(db: Executor, eventIds: string[]): Promise<Map<string, Record<string, unknown>>> {
  if (eventIds.length === 0) return new Map()
  const { rows } = await sql<{ event_id: string; data: Record<string, unknown> }>`
    select event_id, data from package_events where event_id = any(${eventIds}::text[])`.execute(db)
  return new Map(rows.map((r) => [r.event_id, r.data]))
}

/** Marks these events dispatched without fanning them out: a restore holds them (held_work) instead. */
export async function markDispatched(trx: Executor, eventIds: string[], now: Date): Promise<void> {
  await sql`update package_events set dispatched_at = ${now}::timestamptz where event_id = any(${eventIds}::text[])`.execute(
    trx,
  )
}
