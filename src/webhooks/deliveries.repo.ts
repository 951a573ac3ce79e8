import { sql, type Insertable } from 'kysely'
import type { Executor } from '../db/transaction.js'
import type { DeliveryStatus, WebhookAttemptRow, WebhookDeliveryRow, WebhookDeliveryTable } from './webhooks.tables.js'

// Deliveries as the API sees them (one subscription, one configuration at a time), and the changes
// a configuration's update or deletion makes to its pending deliveries.
const DELIVERY_COLUMNS = [
  'delivery_id', 'sub_id', 'config_id', 'event_id', 'event_name', 'package_id', 'sequence', 'occurred_at', 'status', 'attempts',
  'next_attempt_at', 'give_up_at', 'locked_until', 'locked_by', 'last_status_code', 'last_error', 'delivered_at', 'created_at', 'updated_at',
] as const

export async function insertDelivery(db: Executor, row: Insertable<WebhookDeliveryTable>): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute()
}

export async function listDeliveries(db: Executor, subId: string, configId: string, q: { status?: DeliveryStatus; skip: number; limit: number }): Promise<WebhookDeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').select(DELIVERY_COLUMNS).where('sub_id', '=', subId).where('config_id', '=', configId)
  query = q.status ? query.where('status', '=', q.status) : query.where('status', '!=', 'cancelled')
  return query.orderBy('created_at', 'desc').orderBy('delivery_id', 'desc').offset(q.skip).limit(q.limit).execute()
}

export async function findDelivery(db: Executor, subId: string, configId: string, deliveryId: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').select(DELIVERY_COLUMNS)
    .where('sub_id', '=', subId).where('config_id', '=', configId).where('delivery_id', '=', deliveryId).executeTakeFirst()
}

/** Makes a failed or pending delivery due now, with a fresh retry window (it starts at the next attempt). */
export async function makeDue(db: Executor, subId: string, configId: string, deliveryId: string, now: Date): Promise<WebhookDeliveryRow | undefined> {
  return db.updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, give_up_at: null, updated_at: now })
    .where('sub_id', '=', subId).where('config_id', '=', configId).where('delivery_id', '=', deliveryId)
    .where('status', 'in', ['pending', 'failed'])
    .returning(DELIVERY_COLUMNS).executeTakeFirst()
}

export async function listAttempts(db: Executor, subId: string, deliveryId: string): Promise<WebhookAttemptRow[]> {
  return db.selectFrom('webhook_attempts')
    .select(['attempt_id', 'delivery_id', 'sub_id', 'config_id', 'attempt_no', 'started_at', 'latency_ms', 'status_code', 'succeeded', 'error_class', 'error', 'response_body'])
    .where('sub_id', '=', subId).where('delivery_id', '=', deliveryId).orderBy('attempt_no').orderBy('started_at').execute()
}

/**
 * A deleted configuration's pending deliveries, in flight or not, are cancelled: a worker's
 * completion only touches a delivery still pending, so an answer arriving later changes nothing.
 */
export async function cancelPending(db: Executor, subId: string, configId: string, now: Date): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ status: 'cancelled', last_error: 'configuration deleted', locked_until: null, locked_by: null, updated_at: now })
    .where('sub_id', '=', subId).where('config_id', '=', configId).where('status', '=', 'pending').execute()
}

/**
 * Fails the pending deliveries a configuration will no longer send (in-active, or events no longer
 * subscribed). One being sent right now is left to its worker; the sweep job catches it after.
 */
export async function failIdlePending(db: Executor, subId: string, configId: string, now: Date, reason: string, keepEvents?: string[]): Promise<void> {
  let q = db.updateTable('webhook_deliveries').set({ status: 'failed', last_error: reason, updated_at: now })
    .where('sub_id', '=', subId).where('config_id', '=', configId).where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
  if (keepEvents) q = q.where('package_id', 'is not', null).where(sql<boolean>`not (event_name = any(${keepEvents}::text[]))`)
  await q.execute()
}
