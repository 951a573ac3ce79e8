import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import './tables.js'

export interface NotificationDayCount {
  /** A UTC date, YYYY-MM-DD: the day the notification was made. */
  day: string
  sent: number
  failed: number
}

/**
 * Per UTC day from..to (inclusive), the notifications made that day that were sent and that failed
 * (a reminder or an SMS counts as one each; a text handed to its provider unconfirmed is sent;
 * pending and suppressed ones are neither). Grouped by the date itself, not its text: no sort of
 * strings over the span's rows. Read by
 * (sub_id, created_at) range on notifications_day_status_idx (migration 0074), status included:
 * an index-only scan of the span's notifications, never the table.
 */
export async function countNotificationsByDay(
  ex: Executor,
  subId: string,
  span: { from: string; to: string },
): Promise<NotificationDayCount[]> {
  const { rows } = await sql<{ day: string; sent: number; failed: number }>`
    select (created_at at time zone 'UTC')::date as day,
           count(*) filter (where status in ('sent', 'unconfirmed'))::int as sent,
           count(*) filter (where status = 'failed')::int as failed
      from notifications
     where sub_id = ${subId}
       and created_at >= (${span.from}::date)::timestamp at time zone 'UTC'
       and created_at < (${span.to}::date + 1)::timestamp at time zone 'UTC'
       and status in ('sent', 'unconfirmed', 'failed')
     group by 1
     order by 1`.execute(ex)
  return rows
}
