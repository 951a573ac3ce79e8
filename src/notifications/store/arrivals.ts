import { sql } from 'kysely'
import { writableRecipient } from '../../contacts/index.js'
import type { Executor } from '../../platform/db/transaction.js'

// Arrival batches: the arrivals the outbox hands the notifications (jobs/consume.ts) join their
// recipient's open batch.

export interface Arrival {
  sub_id: string
  package_id: string
  contact_id: string
  arrived_at: Date
}

export interface BatchWanted {
  /** Used when no batch is open for the recipient. */
  notification_id: string
  sub_id: string
  contact_id: string
  /** When a batch opened now is due (its first arrival + arrivalBatchSeconds); an open one keeps its own. */
  next_attempt_at: Date
  created_at: Date
}

/**
 * Each recipient's open arrival batch (pending, never claimed), else a new one, and the parcels
 * linked to it, in one statement. An arrival joins the email that has not left yet (its address
 * updated to the contact's latest); a claim (attempts > 0) closes the batch, and the next arrival
 * opens another. Recipients who cannot be written to (deleted, or senders) are skipped. Only the
 * worker's gathering writes here, in a short transaction: the open row is locked for that long,
 * not for an add's. Rows go in (subscription, contact) order, so two gatherers never deadlock.
 */
export async function joinArrivalBatches(
  db: Executor,
  batches: readonly BatchWanted[],
  arrivals: readonly Arrival[],
  now: Date,
): Promise<void> {
  if (batches.length === 0) return
  const iso = (d: Date) => d.toISOString()
  await sql`
    with wanted as (
      select b.notification_id, b.sub_id, b.contact_id, coalesce(c.email, '') as to_address, b.next_attempt_at, b.created_at
      from unnest(${batches.map((b) => b.notification_id)}::text[], ${batches.map((b) => b.sub_id)}::text[],
                  ${batches.map((b) => b.contact_id)}::text[], ${batches.map((b) => iso(b.next_attempt_at))}::timestamptz[],
                  ${batches.map((b) => iso(b.created_at))}::timestamptz[])
        as b(notification_id, sub_id, contact_id, next_attempt_at, created_at)
      cross join lateral (${writableRecipient(sql.ref('b.sub_id'), sql.ref('b.contact_id'))}) c
    ), opened as (
      insert into notifications (notification_id, sub_id, kind, channel, contact_id, to_address, step, status, attempts,
                                 next_attempt_at, created_at, updated_at)
      select w.notification_id, w.sub_id, 'ARRIVAL', 'email', w.contact_id, w.to_address, 0, 'pending', 0,
             w.next_attempt_at, w.created_at, ${iso(now)}::timestamptz
      from wanted w
      order by w.sub_id, w.contact_id
      on conflict (sub_id, contact_id) where kind = 'ARRIVAL' and status = 'pending' and attempts = 0 and parent_id is null
      do update set to_address = case when notifications.channel = 'sms' then notifications.to_address
                                      else excluded.to_address end,
                    updated_at = excluded.updated_at
      returning notification_id, sub_id, contact_id
    )
    insert into notification_packages (notification_id, package_id, sub_id, kind, step, created_at)
    select o.notification_id, l.package_id, l.sub_id, 'ARRIVAL', 0, l.arrived_at
    from opened o
    join unnest(${arrivals.map((a) => a.sub_id)}::text[], ${arrivals.map((a) => a.contact_id)}::text[],
                ${arrivals.map((a) => a.package_id)}::text[], ${arrivals.map((a) => iso(a.arrived_at))}::timestamptz[])
      as l(sub_id, contact_id, package_id, arrived_at)
      on l.sub_id = o.sub_id and l.contact_id = o.contact_id
    on conflict do nothing`.execute(db)
}
