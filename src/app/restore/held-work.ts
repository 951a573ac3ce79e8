import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../../platform/db/database.js'
import { inTransaction, type Trx } from '../../platform/db/transaction.js'
import { newId } from '../../platform/kit/ids.js'
import { CONSUMERS } from '../../events/index.js'
import { NOT_DUE } from '../../platform/jobs/held-work.js'

// What a restore holds back, and the operator's decision on it (docs/backup.md). A restored copy
// must not send blind what was pending in its backup: the original may have sent it after the
// backup was taken. The queues themselves know nothing of it: a held row is simply not due (its
// next attempt is set far ahead), a held outbox event is marked consumed; held_work (migration
// 0052) remembers which, so that a resend puts them back and a drop settles them. It lives here,
// in app/, because it spans the outbound queues of two domains and is an operator's action.

export const HELD_KINDS = ['emails', 'webhooks'] as const
export type HeldKind = (typeof HELD_KINDS)[number]

const DROPPED = 'dropped by an operator after a restore: it may have been sent before the backup was restored'

const kindOf = { emails: 'email', webhooks: 'webhook' } as const satisfies Record<HeldKind, string>

export interface RestoreMark {
  restoreId: string
  restoredAt: Date
  held: Record<HeldKind, number>
}

/**
 * Records a restore and holds the outbound work pending in it that is older than `holdAfterSeconds`
 * at `now`: emails (notifications pending, and arrivals and hand-overs the notifications had not read
 * yet) and webhooks (deliveries pending, and events not fanned out yet). One transaction: a restore
 * is marked with all its holds or not at all. Run it before the restored service starts.
 */
export async function markRestored(
  db: Db,
  opts: { now: Date; holdAfterSeconds: number; snapshotAt?: Date; source: 'backup' | 'mark' },
): Promise<RestoreMark> {
  const { now } = opts
  const restoreId = newId('rst_', now.getTime())
  const cutoff = new Date(now.getTime() - opts.holdAfterSeconds * 1000)
  const notified = CONSUMERS.notifications
  const held = await inTransaction(db, async (trx) => {
    await sql`insert into restores (restore_id, restored_at, snapshot_at, source, hold_after_seconds)
              values (${restoreId}, ${now}::timestamptz, ${opts.snapshotAt ?? null}::timestamptz, ${opts.source}, ${opts.holdAfterSeconds})`.execute(
      trx,
    )
    // A hold counts as an attempt, as a claim does: it closes an open arrival batch, so that a
    // later arrival opens a new email instead of joining one that waits for a decision.
    const emails = await record(
      trx,
      sql`update notifications set next_attempt_at = ${NOT_DUE}::timestamptz, attempts = attempts + 1, locked_until = null,
            locked_by = null, updated_at = ${now}::timestamptz
          where status = 'pending' and created_at < ${cutoff}::timestamptz
          returning notification_id as id, created_at as since`,
      'notification',
      'email',
      restoreId,
    )
    const emailEvents = await record(
      trx,
      sql`update package_events e set ${sql.ref(notified.mark)} = ${now}::timestamptz
          where e.${sql.ref(notified.mark)} is null and e.variant = ${notified.variant}
            and e.event_name in (${sql.join(notified.eventNames.map((n) => sql.lit(n)))}) and e.occurred_at < ${cutoff}::timestamptz
          returning e.event_id as id, e.occurred_at as since`,
      'notify-event',
      'email',
      restoreId,
    )
    const webhooks = await record(
      trx,
      sql`update webhook_deliveries set next_attempt_at = ${NOT_DUE}::timestamptz, locked_until = null, locked_by = null,
            updated_at = ${now}::timestamptz
          where status = 'pending' and occurred_at < ${cutoff}::timestamptz
          returning delivery_id as id, occurred_at as since`,
      'delivery',
      'webhook',
      restoreId,
    )
    const webhookEvents = await record(
      trx,
      sql`update package_events set dispatched_at = ${now}::timestamptz
          where dispatched_at is null and occurred_at < ${cutoff}::timestamptz
          returning event_id as id, occurred_at as since`,
      'dispatch-event',
      'webhook',
      restoreId,
    )
    return { emails: emails + emailEvents, webhooks: webhooks + webhookEvents }
  })
  return { restoreId, restoredAt: now, held }
}

async function record(
  trx: Trx,
  hold: RawBuilder<{ id: string; since: Date }>,
  itemType: string,
  kind: string,
  restoreId: string,
): Promise<number> {
  const { rows } = await hold.execute(trx)
  if (rows.length === 0) return 0
  await sql`insert into held_work (item_type, item_id, kind, restore_id, since)
            select ${itemType}, h.id, ${kind}, ${restoreId}, h.since
            from unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.since.toISOString())}::timestamptz[]) as h(id, since)
            on conflict do nothing`.execute(trx)
  return rows.length
}

export interface HeldSummary {
  /** The latest restore of this database, if it is one. */
  restore: { restoreId: string; restoredAt: string; snapshotAt: string | null; holdAfterMinutes: number } | null
  held: Record<HeldKind, { count: number; oldest: string | null }>
}

export async function listHeld(db: Db): Promise<HeldSummary> {
  const { rows: restores } = await sql<{
    restore_id: string
    restored_at: Date
    snapshot_at: Date | null
    hold_after_seconds: number
  }>`select restore_id, restored_at, snapshot_at, hold_after_seconds from restores order by restored_at desc limit 1`.execute(
    db,
  )
  const { rows } = await sql<{ kind: string; n: number; oldest: Date | null }>`
    select kind, count(*)::int as n, min(since) as oldest from held_work group by kind`.execute(db)
  const held = {} as HeldSummary['held']
  for (const k of HELD_KINDS) {
    const r = rows.find((x) => x.kind === kindOf[k])
    held[k] = { count: r?.n ?? 0, oldest: r?.oldest ? r.oldest.toISOString() : null }
  }
  const last = restores[0]
  return {
    restore: last
      ? {
          restoreId: last.restore_id,
          restoredAt: last.restored_at.toISOString(),
          snapshotAt: last.snapshot_at ? last.snapshot_at.toISOString() : null,
          holdAfterMinutes: Math.round(last.hold_after_seconds / 60),
        }
      : null,
    held,
  }
}

/**
 * The operator's decision on one kind: `resend` makes the held rows due now (a webhook's retry
 * window starts again, as after a manual retry) and hands the held events back to their consumer;
 * `drop` settles the rows (emails failed, webhooks cancelled, with the reason) and leaves the events
 * consumed. Either way they are no longer held. Returns how many items it decided.
 */
export async function decideHeld(db: Db, kind: HeldKind, decision: 'resend' | 'drop', now: Date): Promise<number> {
  return inTransaction(db, async (trx) => {
    const { rows } = await sql<{ item_type: string; item_id: string }>`
      delete from held_work where kind = ${kindOf[kind]} returning item_type, item_id`.execute(trx)
    const ids = (type: string) => rows.filter((r) => r.item_type === type).map((r) => r.item_id)
    if (kind === 'emails') {
      const notifications = ids('notification')
      if (decision === 'resend') {
        await sql`update notifications set next_attempt_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
                  where notification_id = any(${notifications}::text[]) and status = 'pending'`.execute(trx)
        await sql`update package_events set ${sql.ref(CONSUMERS.notifications.mark)} = null
                  where event_id = any(${ids('notify-event')}::text[])`.execute(trx)
      } else
        await sql`update notifications set status = 'failed', last_error = ${DROPPED}, updated_at = ${now}::timestamptz
                  where notification_id = any(${notifications}::text[]) and status = 'pending'`.execute(trx)
    } else {
      const deliveries = ids('delivery')
      if (decision === 'resend') {
        await sql`update webhook_deliveries set next_attempt_at = ${now}::timestamptz, give_up_at = null, updated_at = ${now}::timestamptz
                  where delivery_id = any(${deliveries}::text[]) and status = 'pending'`.execute(trx)
        await sql`update package_events set dispatched_at = null
                  where event_id = any(${ids('dispatch-event')}::text[])`.execute(trx)
      } else
        await sql`update webhook_deliveries set status = 'cancelled', last_error = ${DROPPED}, updated_at = ${now}::timestamptz
                  where delivery_id = any(${deliveries}::text[]) and status = 'pending'`.execute(trx)
    }
    return rows.length
  })
}
