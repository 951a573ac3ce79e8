import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import { NOT_WAITING } from '../../packages/index.js'

/** One holder at a time across every process, for the rest of the transaction; false: another process runs it. */
export async function tryJobLock(trx: Executor, job: string): Promise<boolean> {
  const { rows } = await sql<{ ok: boolean }>`
    select pg_try_advisory_xact_lock(hashtext(${`mailroom:notifications:${job}`})) as ok`.execute(trx)
  return rows[0]?.ok === true
}

export interface DueReminder {
  package_id: string
  contact_id: string
  to_address: string
}

/**
 * Packages of `subId` told of by an arrival email at or before `cutoff`, still waiting (a status
 * not in NOT_WAITING, not archived: the packages domain's one definition of waiting), with no reminder of this step or a later one (and, for
 * reminders, no final notice): the reminder job's candidates for `kind`/`step`. Reads the packages
 * table for the waiting status, as the webhook locker jobs do.
 */
export async function dueReminders(
  db: Executor,
  opts: { subId: string; kind: 'REMINDER' | 'FINAL_NOTICE'; step: number; cutoff: Date; limit: number },
): Promise<DueReminder[]> {
  const { subId, kind, step, cutoff, limit } = opts
  const { rows } = await sql<DueReminder>`
    select distinct on (np.package_id) np.package_id, n.contact_id, n.to_address
    from notification_packages np
    join notifications n on n.notification_id = np.notification_id
    join packages p on p.package_id = np.package_id and p.sub_id = np.sub_id
    where np.sub_id = ${subId} and np.kind = 'ARRIVAL' and n.status in ('sent', 'suppressed') and np.created_at <= ${cutoff}::timestamptz
      and p.current_status not in (${sql.join(NOT_WAITING.map((s) => sql.lit(s)))}) and not p.archived
      and not exists (
        select 1 from notification_packages r
        where r.package_id = np.package_id
          and ((r.kind = ${kind} and r.step >= ${step}) or r.kind = 'FINAL_NOTICE'))
    order by np.package_id, np.created_at
    limit ${limit}`.execute(db)
  return rows
}
