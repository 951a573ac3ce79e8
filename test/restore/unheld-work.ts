import { sql, type Kysely } from 'kysely'

/**
 * The outbound work of a restored database that a restore with no threshold must have held, but
 * did not: pending emails and webhook deliveries that are due some day before 9999 or have no
 * held_work row, and events the webhook fan-out or the notifications could still read. All zero
 * when the hold is complete; `pending` says how much there was, so that zero is not vacuous.
 */
export async function unheldWork(db: Kysely<any>) {
  const count = async (q: ReturnType<typeof sql<{ n: number }>>) => (await q.execute(db)).rows[0]!.n
  const notDue = sql`'9999-01-01'::timestamptz`
  return {
    pending: await count(sql<{ n: number }>`select ((select count(*) from notifications where status = 'pending')
      + (select count(*) from webhook_deliveries where status = 'pending'))::int as n`),
    notifications: await count(sql<{
      n: number
    }>`select count(*)::int as n from notifications n where n.status = 'pending'
      and (n.next_attempt_at < ${notDue} or not exists (select 1 from held_work h where h.item_type = 'notification' and h.item_id = n.notification_id))`),
    deliveries: await count(sql<{
      n: number
    }>`select count(*)::int as n from webhook_deliveries d where d.status = 'pending'
      and (d.next_attempt_at < ${notDue} or not exists (select 1 from held_work h where h.item_type = 'delivery' and h.item_id = d.delivery_id))`),
    events: await count(sql<{ n: number }>`select count(*)::int as n from package_events e
      where e.dispatched_at is null or (e.notified_at is null and e.variant = 'tracking' and e.event_name in ('Acceptance', 'Delivered', 'PickedUp'))`),
  }
}
