import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import { packageWaiting, packageWaitingFlagged } from '../../packages/index.js'
import { waitCountsFrom } from '../../holds/index.js'

/** One holder at a time across every process, for the rest of the transaction; false: another process runs it. */
export async function tryJobLock(trx: Executor, job: string): Promise<boolean> {
  const { rows } = await sql<{ ok: boolean }>`
    select pg_try_advisory_xact_lock(hashtext(${`mailroom:notifications:${job}`})) as ok`.execute(trx)
  return rows[0]?.ok === true
}

export interface DueReminder {
  /** The arrival email reminded of. */
  arrival_id: string
  contact_id: string
  to_address: string
  /** Its parcels still waiting and not yet reminded of at this step or a later one. */
  package_ids: string[]
}

/**
 * The arrival emails of `subId` sent (or recorded suppressed) at or before `cutoff`, with no
 * reminder of this step or a later one (and, for reminders, no final notice), and their parcels
 * still waiting (the packages domain's packageWaiting, its one definition of waiting); an email
 * whose parcels were all collected is not among them. A parcel reminded of by a reminder of the
 * former kind (one per parcel, before migration 0041) is left out. A recipient's hold (issue 30.2)
 * moves the email's time to the hold's end (holds' waitCountsFrom): paused while it lasts.
 */
export async function dueReminders(
  db: Executor,
  opts: {
    subId: string
    kind: 'REMINDER' | 'FINAL_NOTICE'
    step: number
    cutoff: Date
    limit: number
    now: Date
    /** Only emails with a perishable parcel still waiting (issue 30: reminded sooner). */
    perishableOnly?: boolean
  },
): Promise<DueReminder[]> {
  const { subId, kind, step, cutoff, limit } = opts
  const later = (r: string) =>
    sql`((${sql.ref(`${r}.kind`)} = ${kind} and ${sql.ref(`${r}.step`)} >= ${step}) or ${sql.ref(`${r}.kind`)} = 'FINAL_NOTICE')`
  const { rows } = await sql<DueReminder>`
    select a.notification_id as arrival_id, a.contact_id, a.to_address,
           array_agg(np.package_id order by np.created_at, np.package_id) as package_ids
    from notifications a
    join notification_packages np on np.notification_id = a.notification_id
    where a.sub_id = ${subId} and a.kind = 'ARRIVAL' and a.status in ('sent', 'suppressed', 'unconfirmed')
      and coalesce(a.sent_at, a.updated_at) <= ${cutoff}::timestamptz
      and ${waitCountsFrom(sql.ref('a.contact_id'), sql.ref('a.sub_id'), sql`coalesce(a.sent_at, a.updated_at)`, opts.now)} <= ${cutoff}::timestamptz
      and ${packageWaiting(sql.ref('np.package_id'), sql.ref('np.sub_id'))}
      and not exists (select 1 from notifications r where r.reminds_id = a.notification_id and ${later('r')})
      and not exists (select 1 from notification_packages r where r.package_id = np.package_id and ${later('r')})
      ${opts.perishableOnly ? sql`and exists (select 1 from notification_packages f where f.notification_id = a.notification_id and ${packageWaitingFlagged(sql.ref('f.package_id'), sql.ref('f.sub_id'), 'PERISHABLE')})` : sql``}
    group by a.notification_id, a.contact_id, a.to_address
    order by min(coalesce(a.sent_at, a.updated_at)), a.notification_id
    limit ${limit}`.execute(db)
  return rows
}
