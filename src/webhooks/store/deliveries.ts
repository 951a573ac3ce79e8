import { sql, type Insertable } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { DeliveryStatus, WebhookDeliveryRow, WebhookDeliveryTable } from './tables.js'

// The webhook_deliveries table: as the API sees it (one subscription, one configuration at a
// time), the changes a configuration's update or deletion makes to its pending deliveries, and
// the worker's and the jobs' writes, which run across subscriptions by design. The claim is in
// webhooks/store/deliveries-claim.ts.
const DELIVERY_COLUMNS = [
  'delivery_id',
  'sub_id',
  'config_id',
  'event_id',
  'event_name',
  'package_id',
  'sequence',
  'occurred_at',
  'status',
  'attempts',
  'next_attempt_at',
  'give_up_at',
  'locked_until',
  'locked_by',
  'last_status_code',
  'last_error',
  'delivered_at',
  'created_at',
  'updated_at',
] as const

export async function insertDelivery(db: Executor, row: Insertable<WebhookDeliveryTable>): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute()
}

export async function listDeliveries(
  db: Executor,
  subId: string,
  configId: string,
  q: { status?: DeliveryStatus; skip: number; limit: number },
): Promise<WebhookDeliveryRow[]> {
  let query = db
    .selectFrom('webhook_deliveries')
    .select(DELIVERY_COLUMNS)
    .where('sub_id', '=', subId)
    .where('config_id', '=', configId)
  query = q.status ? query.where('status', '=', q.status) : query.where('status', '!=', 'cancelled')
  return query.orderBy('created_at', 'desc').orderBy('delivery_id', 'desc').offset(q.skip).limit(q.limit).execute()
}

export async function findDelivery(
  db: Executor,
  subId: string,
  configId: string,
  deliveryId: string,
): Promise<WebhookDeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .select(DELIVERY_COLUMNS)
    .where('sub_id', '=', subId)
    .where('config_id', '=', configId)
    .where('delivery_id', '=', deliveryId)
    .executeTakeFirst()
}

/** Makes a failed or pending delivery due now, with a fresh retry window (it starts at the next attempt). */
export async function makeDue(
  db: Executor,
  subId: string,
  configId: string,
  deliveryId: string,
  now: Date,
): Promise<WebhookDeliveryRow | undefined> {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, give_up_at: null, updated_at: now })
    .where('sub_id', '=', subId)
    .where('config_id', '=', configId)
    .where('delivery_id', '=', deliveryId)
    .where('status', 'in', ['pending', 'failed'])
    .returning(DELIVERY_COLUMNS)
    .executeTakeFirst()
}

/** A new delivery as the fan-out writes it: pending, not yet attempted, no lease. */
export type NewFannedOutDelivery = Pick<
  WebhookDeliveryRow,
  | 'delivery_id'
  | 'sub_id'
  | 'config_id'
  | 'event_id'
  | 'event_name'
  | 'package_id'
  | 'sequence'
  | 'occurred_at'
  | 'next_attempt_at'
  | 'created_at'
>

/**
 * Inserts the fan-out's deliveries, all of them as ONE parameter (a JSON array): a statement with
 * a parameter per value stops at 65,535 of them (about 4,700 deliveries), and a fan-out that
 * overflowed it failed on every pass for every subscription (issue 26).
 */
export async function insertDeliveries(trx: Executor, rows: NewFannedOutDelivery[]): Promise<void> {
  if (rows.length === 0) return
  // A configuration already holding this event (a fan-out repeated after a crash) keeps its delivery.
  await sql`
    insert into webhook_deliveries (delivery_id, sub_id, config_id, event_id, event_name, package_id, sequence,
      occurred_at, status, attempts, next_attempt_at, give_up_at, created_at, updated_at)
    select v.delivery_id, v.sub_id, v.config_id, v.event_id, v.event_name, v.package_id, v.sequence,
      v.occurred_at, 'pending', 0, v.next_attempt_at, null, v.created_at, v.created_at
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(delivery_id text, sub_id text, config_id text,
      event_id text, event_name text, package_id text, sequence int, occurred_at timestamptz,
      next_attempt_at timestamptz, created_at timestamptz)
    on conflict (config_id, event_id) do nothing`.execute(trx)
}

export interface DeliveryOutcome {
  delivery_id: string
  status: 'pending' | 'delivered' | 'failed'
  next_attempt_at: Date
  delivered_at: Date | null
  last_status_code: number | null
  last_error: string | null
}

/**
 * Records the outcome of each delivery in one statement. Only a delivery this worker still holds
 * and that is still pending changes: a cancelled one stays cancelled, and one whose lease another
 * worker took over is that worker's to record.
 */
export async function recordOutcomes(
  trx: Executor,
  workerId: string,
  now: Date,
  outcomes: DeliveryOutcome[],
): Promise<void> {
  if (outcomes.length === 0) return
  await sql`
    update webhook_deliveries d
    set status = v.status, next_attempt_at = v.next_attempt_at, delivered_at = v.delivered_at,
        last_status_code = v.last_status_code, last_error = v.last_error,
        locked_until = null, locked_by = null, updated_at = ${now}::timestamptz
    from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb)
      as v(delivery_id text, status text, next_attempt_at timestamptz, delivered_at timestamptz, last_status_code int, last_error text)
    where d.delivery_id = v.delivery_id and d.locked_by = ${workerId} and d.status = 'pending'`.execute(trx)
}

/**
 * A deleted configuration's pending deliveries, in flight or not, are cancelled: a worker's
 * completion only touches a delivery still pending, so an answer arriving later changes nothing.
 */
export async function cancelPending(db: Executor, subId: string, configId: string, now: Date): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: 'cancelled',
      last_error: 'configuration deleted',
      locked_until: null,
      locked_by: null,
      updated_at: now,
    })
    .where('sub_id', '=', subId)
    .where('config_id', '=', configId)
    .where('status', '=', 'pending')
    .execute()
}

/**
 * Fails the pending deliveries a configuration will no longer send (in-active, or events no longer
 * subscribed). One being sent right now is left to its worker; the sweep job catches it after.
 */
export async function failIdlePending(
  db: Executor,
  subId: string,
  configId: string,
  now: Date,
  reason: string,
  keepEvents?: string[],
): Promise<void> {
  let q = db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: reason, updated_at: now })
    .where('sub_id', '=', subId)
    .where('config_id', '=', configId)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
  if (keepEvents)
    q = q.where('package_id', 'is not', null).where(sql<boolean>`not (event_name = any(${keepEvents}::text[]))`)
  await q.execute()
}

/** Fails the idle pending deliveries of configurations just disabled on the receiver's behalf. */
export async function failPendingOf(trx: Executor, configIds: string[], why: string, now: Date): Promise<void> {
  if (configIds.length === 0) return
  // Deliveries in flight elsewhere come back pending after this: the sweep closes them.
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: why, updated_at: now })
    .where('config_id', 'in', configIds)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .execute()
}

/**
 * Closes up to `limit` pending deliveries of these configurations that the claim will never pick,
 * because the configuration was deleted, set in-active, or no longer subscribes to the event; one
 * being sent now is left to its worker (it is closed at a later sweep). Driven by the
 * configurations that asked for it, each read through its pending deliveries' index: the cost
 * follows what changed, not how many deliveries are pending everywhere.
 */
export async function closeUnsendable(db: Executor, configIds: string[], now: Date, limit: number): Promise<number> {
  if (configIds.length === 0) return 0
  const res = await sql`
    with doomed as (
      select d.delivery_id, c.deleted_at is not null as deleted,
             case when c.deleted_at is not null then 'configuration deleted'
                  when c.status <> 'active' then 'configuration in-active'
                  else 'event no longer subscribed' end as why
      from webhook_configs c
      join webhook_deliveries d on d.config_id = c.config_id and d.status = 'pending'
      where c.config_id = any(${configIds}::text[])
        and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
        and (c.deleted_at is not null or c.status <> 'active' or (d.package_id is not null and not (d.event_name = any(c.events))))
      limit ${limit}
      for update of d skip locked
    )
    update webhook_deliveries d
    set status = case when doomed.deleted then 'cancelled' else 'failed' end, last_error = doomed.why,
        locked_until = null, locked_by = null, updated_at = ${now}::timestamptz
    from doomed
    where d.delivery_id = doomed.delivery_id`.execute(db)
  return Number(res.numAffectedRows ?? 0)
}

/**
 * Deletes up to `limit` finished deliveries (their attempts cascade) created and last changed
 * before `cutoff`. It walks each configuration's listing index rather than keeping an index of
 * its own that every delivery would have to maintain.
 */
export async function purgeDeliveries(db: Executor, cutoff: Date, limit: number): Promise<number> {
  const res = await sql`
    delete from webhook_deliveries where delivery_id in (
      select old.delivery_id from webhook_configs c
      cross join lateral (
        select d.delivery_id from webhook_deliveries d
        where d.sub_id = c.sub_id and d.config_id = c.config_id and d.created_at < ${cutoff}::timestamptz
          and d.status <> 'pending' and d.updated_at < ${cutoff}::timestamptz
        limit ${limit}) old
      limit ${limit})`.execute(db)
  return Number(res.numAffectedRows ?? 0)
}
