import { sql, type ExpressionBuilder } from 'kysely'
import type { Database } from '../../platform/db/tables.js'
import type { Executor } from '../../platform/db/transaction.js'
import type { NotificationChannel, NotificationStatus } from '../model/kinds.js'
import type { NotificationRow } from './tables.js'

/**
 * Claims up to `limit` due notifications for `workerId` (any number of workers in any number of
 * processes: SKIP LOCKED passes over rows another claim or an observer's transaction holds). Each
 * row's lease is taken afresh just before its send (renewLease), so the lease covers one send,
 * however long the row waited in line; past it, a worker that died mid-send has its notification
 * claimed again (at least once: the resend carries the same Message-ID). A claim counts as an attempt, which
 * also closes an arrival batch: later arrivals open a new one.
 */
export async function claimDue(
  db: Executor,
  opts: { now: Date; limit: number; workerId: string; leaseMs: number },
): Promise<NotificationRow[]> {
  const { now, limit, workerId, leaseMs } = opts
  const { rows } = await sql<NotificationRow>`
    update notifications n
    set locked_until = ${new Date(now.getTime() + leaseMs)}::timestamptz, locked_by = ${workerId},
        attempts = n.attempts + 1, updated_at = ${now}::timestamptz
    where n.notification_id = any(array(
      select notification_id from notifications
      where status = 'pending' and next_attempt_at <= ${now}::timestamptz
        and (locked_until is null or locked_until <= ${now}::timestamptz)
      order by next_attempt_at
      limit ${limit}
      for update skip locked))
    returning n.notification_id, n.sub_id, n.kind, n.channel, n.contact_id, n.to_address, n.step, n.status, n.attempts,
              n.last_error, n.next_attempt_at, n.locked_until, n.locked_by, n.sent_at, n.created_at, n.updated_at,
              n.reminds_id, n.parent_id, n.provider_message_id, n.delivery_status, n.delivered_at,
              n.send_started_at`.execute(db)
  return rows
}

/**
 * Takes the lease of one claimed notification afresh just before it is sent, and records the
 * address it is about to be mailed to: a claim covers a whole batch, whose last rows may wait in
 * line longer than the lease; by then another worker may have claimed one again (its attempts
 * moved on) or settled it. False: it is no longer this claim's, and must not be sent.
 */
export async function renewLease(
  db: Executor,
  claim: { notificationId: string; workerId: string; attempts: number },
  opts: {
    now: Date
    leaseMs: number
    to: string
    channel?: NotificationChannel
    /** A text: its send marker, committed with the lease before the provider is asked (migration 0075). */
    markSend?: boolean
  },
): Promise<boolean> {
  const r = await db
    .updateTable('notifications')
    .set({
      locked_until: new Date(opts.now.getTime() + opts.leaseMs),
      to_address: opts.to,
      updated_at: opts.now,
      // A notification whose recipient chose texts only becomes its text here, before it is sent.
      ...(opts.channel ? { channel: opts.channel } : {}),
      ...(opts.markSend ? { send_started_at: opts.now } : {}),
    })
    .where(stillOurs(claim))
    .executeTakeFirst()
  return Number(r.numUpdatedRows) === 1
}

/** The row is still this claim's: claimed by this worker for this attempt, and not settled since. */
function stillOurs(claim: { notificationId: string; workerId: string; attempts: number }) {
  return (eb: ExpressionBuilder<Database, 'notifications'>) =>
    eb.and([
      eb('notification_id', '=', claim.notificationId),
      eb('locked_by', '=', claim.workerId),
      eb('attempts', '=', claim.attempts),
      eb('status', '=', 'pending'),
    ])
}

/**
 * Records the outcome of a claimed attempt, only while the claim is still this worker's (a lease
 * that ran out may have been claimed again). `retryAt`: pending again then. Returns whether it held.
 */
export async function recordOutcome(
  db: Executor,
  claim: { notificationId: string; workerId: string; attempts: number },
  outcome: {
    status: NotificationStatus
    lastError: string | null
    sentAt: Date | null
    retryAt?: Date
    now: Date
    /** The address mailed (or that would have been): what the list and the events show. */
    to?: string
    /** A notification that became its text (the recipient chose texts only). */
    channel?: NotificationChannel
    /**
     * Pending again at no cost (a text held by quiet hours): the claim's attempt is given back, so
     * the wait spends none, and an arrival whose first claim it was is its recipient's open batch
     * again: parcels arriving meanwhile join the text that waits (one text when the hours end).
     * Unless another batch was opened since: then this one stays closed.
     */
    refundAttempt?: boolean
    /**
     * Pending again because the provider refused or failed the text for certain: nothing is in its
     * hands, so its send marker goes and the next attempt sends. Only then: a pending outcome after
     * an error whose text the provider may hold (a database error once it was handed over) keeps the
     * marker, and the next claim settles it 'unconfirmed' rather than send it again.
     */
    clearSendMarker?: boolean
  },
): Promise<boolean> {
  const r = await db
    .updateTable('notifications')
    .set({
      status: outcome.status,
      last_error: outcome.lastError,
      sent_at: outcome.sentAt,
      locked_until: null,
      locked_by: null,
      updated_at: outcome.now,
      ...(outcome.retryAt ? { next_attempt_at: outcome.retryAt } : {}),
      ...(outcome.clearSendMarker ? { send_started_at: null } : {}),
      ...(outcome.to !== undefined ? { to_address: outcome.to } : {}),
      ...(outcome.channel ? { channel: outcome.channel } : {}),
      ...(outcome.refundAttempt
        ? {
            attempts: sql<number>`case when attempts = 1 and kind = 'ARRIVAL' and parent_id is null and exists (
              select 1 from notifications o
              where o.sub_id = notifications.sub_id and o.contact_id = notifications.contact_id
                and o.kind = 'ARRIVAL' and o.status = 'pending' and o.attempts = 0 and o.parent_id is null
                and o.notification_id <> notifications.notification_id)
              then attempts else greatest(attempts - 1, 0) end`,
          }
        : {}),
    })
    .where(stillOurs(claim))
    .executeTakeFirst()
  return Number(r.numUpdatedRows) === 1
}
