import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { NotificationKind, NotificationStatus } from '../model/kinds.js'
import type { NotificationRow } from './tables.js'
import './tables.js'
import { inStatementChunks } from '../../platform/db/statement-limits.js'

// The notifications outbox and the packages each row is about. The observer writes here inside
// the packages domain's transactions; the worker claims and records; the API lists and resends.

const COLUMNS = [
  'notification_id',
  'sub_id',
  'kind',
  'channel',
  'contact_id',
  'to_address',
  'step',
  'status',
  'attempts',
  'last_error',
  'next_attempt_at',
  'locked_until',
  'locked_by',
  'sent_at',
  'created_at',
  'updated_at',
  'reminds_id',
  'parent_id',
  'provider_message_id',
  'delivery_status',
  'delivered_at',
  'send_started_at',
] as const

export interface NewNotification {
  notification_id: string
  sub_id: string
  kind: NotificationKind
  contact_id: string
  to_address: string
  step: number
  status: NotificationStatus
  next_attempt_at: Date
  created_at: Date
  /** A reminder's arrival email. */
  reminds_id?: string
}

const rowOf = (n: NewNotification) => ({
  ...n,
  channel: 'email' as const,
  attempts: 0,
  last_error: null,
  locked_until: null,
  locked_by: null,
  sent_at: null,
  updated_at: n.created_at,
})

export async function insertNotifications(db: Executor, rows: NewNotification[]): Promise<void> {
  if (rows.length === 0) return
  await inStatementChunks(rows.map(rowOf), (chunk) => db.insertInto('notifications').values(chunk).execute())
}

/** Links packages to a notification; a (package, kind, step) already reminded of is skipped (returned: those linked). */
export async function linkPackages(
  db: Executor,
  rows: Array<{
    notification_id: string
    package_id: string
    sub_id: string
    kind: NotificationKind
    step: number
    created_at: Date
  }>,
): Promise<string[]> {
  if (rows.length === 0) return []
  const { rows: linked } = await sql<{ package_id: string }>`
    insert into notification_packages (notification_id, package_id, sub_id, kind, step, created_at)
    select r.notification_id, r.package_id, r.sub_id, r.kind, r.step, r.created_at
    from jsonb_populate_recordset(null::notification_packages, ${JSON.stringify(rows)}::jsonb) r
    on conflict do nothing
    returning package_id`.execute(db)
  return linked.map((r) => r.package_id)
}

/**
 * Package ids of each notification, in the order they were linked. A text beside an email (parent_id)
 * is about its parent's packages: pass the parent's id under the text's (`aliases`: text id → parent id).
 */
export async function packageIdsOf(
  db: Executor,
  notificationIds: string[],
  aliases: ReadonlyMap<string, string> = new Map(),
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(notificationIds.map((id) => [id, []]))
  if (notificationIds.length === 0) return out
  const read = [...new Set(notificationIds.map((id) => aliases.get(id) ?? id))]
  const rows = await db
    .selectFrom('notification_packages')
    .select(['notification_id', 'package_id'])
    .where('notification_id', 'in', read)
    .orderBy('created_at')
    .orderBy('package_id')
    .execute()
  const byRead = new Map<string, string[]>(read.map((id) => [id, []]))
  for (const r of rows) byRead.get(r.notification_id)?.push(r.package_id)
  for (const id of notificationIds) out.set(id, byRead.get(aliases.get(id) ?? id) ?? [])
  return out
}

/** Text id → parent id, for the texts among `rows` sent beside an email. */
export const parentsOf = (rows: readonly { notification_id: string; parent_id: string | null }[]) =>
  new Map(rows.flatMap((r) => (r.parent_id ? [[r.notification_id, r.parent_id] as const] : [])))

export interface ListFilter {
  subId: string
  packageId?: string
  contactId?: string
  status?: NotificationStatus
  limit: number
}

export async function listNotifications(db: Executor, f: ListFilter): Promise<NotificationRow[]> {
  let q = db
    .selectFrom('notifications as n')
    .select(COLUMNS.map((c) => `n.${c}` as const))
    .where('n.sub_id', '=', f.subId)
  if (f.contactId) q = q.where('n.contact_id', '=', f.contactId)
  if (f.status) q = q.where('n.status', '=', f.status)
  if (f.packageId) {
    const packageId = f.packageId
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('notification_packages as np')
          .select('np.package_id')
          .where((e) =>
            e.or([
              e('np.notification_id', '=', e.ref('n.notification_id')),
              e('np.notification_id', '=', e.ref('n.parent_id')),
            ]),
          )
          .where('np.package_id', '=', packageId),
      ),
    )
  }
  return q.orderBy('n.created_at', 'desc').orderBy('n.notification_id', 'desc').limit(f.limit).execute()
}

export async function findNotification(db: Executor, subId: string, id: string): Promise<NotificationRow | undefined> {
  return db
    .selectFrom('notifications')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('notification_id', '=', id)
    .executeTakeFirst()
}

/**
 * Resend: due again now (the Message-ID stays the same), with a fresh attempt budget, unless a
 * worker holds it (its lease not over): a send under way is never taken from under it. Answers
 * whether it was requeued. An ARRIVAL restarts at one attempt, not zero: a pending arrival with no
 * attempt is its recipient's open batch (notifications_open_arrival_uq), which new arrivals join;
 * an email already sent must not become that batch, nor collide with the one already open.
 */
export async function requeue(db: Executor, subId: string, id: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('notifications')
    .set({
      status: 'pending',
      attempts: sql<number>`case when kind = 'ARRIVAL' then 1 else 0 end`,
      next_attempt_at: now,
      locked_until: null,
      locked_by: null,
      updated_at: now,
      // Resent on purpose: the text goes again, its earlier hand-over no longer stands in the way,
      // nor its earlier provider id and receipt: a resend killed mid-send reads an id as proof it
      // was taken (jobs/texts.ts), and the earlier send's id would be no proof of this one.
      send_started_at: null,
      provider_message_id: null,
      delivery_status: null,
      delivered_at: null,
    })
    .where('sub_id', '=', subId)
    .where('notification_id', '=', id)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
