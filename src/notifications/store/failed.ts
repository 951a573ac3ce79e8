import type { Executor } from '../../platform/db/transaction.js'
import type { NotificationKind } from '../model/kinds.js'
import { packageIdsOf, parentsOf } from './notifications.js'
import './tables.js'

export interface FailedNotification {
  notificationId: string
  kind: NotificationKind
  channel: string
  contactId: string
  failedAt: Date
  lastError: string | null
  packageIds: string[]
}

/**
 * The subscription's failed notifications, the most recent failures first, at most `limit`, each
 * with its packages (a text's are its email's): the exceptions list (issue 30.3). A resend makes
 * the row pending again, so it leaves this list. Read on notifications_failed_idx (migration 0079).
 */
export async function failedNotifications(db: Executor, subId: string, limit: number): Promise<FailedNotification[]> {
  const rows = await db
    .selectFrom('notifications')
    .select(['notification_id', 'kind', 'channel', 'contact_id', 'updated_at', 'last_error', 'parent_id'])
    .where('sub_id', '=', subId)
    .where('status', '=', 'failed')
    .orderBy('updated_at', 'desc')
    .limit(limit)
    .execute()
  const packages = await packageIdsOf(
    db,
    rows.map((r) => r.notification_id),
    parentsOf(rows),
  )
  return rows.map((r) => ({
    notificationId: r.notification_id,
    kind: r.kind,
    channel: r.channel,
    contactId: r.contact_id,
    failedAt: r.updated_at,
    lastError: r.last_error,
    packageIds: packages.get(r.notification_id) ?? [],
  }))
}
