import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

// The locker jobs' question to the packages domain: which parcels have sat in a locker too long.
// Their events then take their per-package `sequence` from nextSequences under the same row lock,
// exactly as the packages service's own writes do.

export interface LockerStay {
  package_id: string
  sub_id: string
  deposited_at: Date
  deposited_sequence: number
  deposited_data: Record<string, unknown>
}

/**
 * Packages in a locker whose current stay (since their latest Deposited event) began before
 * `cutoff` and has no `eventName` yet (a reminder is also skipped once the stay expired), locked.
 */
export async function dueLockerStays(
  trx: Executor,
  eventName: 'PickupReminder' | 'Expired',
  cutoff: Date,
  limit: number,
): Promise<LockerStay[]> {
  const blocking = eventName === 'PickupReminder' ? ['PickupReminder', 'Expired'] : ['Expired']
  const { rows } = await sql<LockerStay>`
    select p.package_id, p.sub_id, dep.occurred_at as deposited_at, dep.sequence as deposited_sequence, dep.data as deposited_data
    from packages p
    join lateral (
      select e.sequence, e.occurred_at, e.data from package_events e
      where e.package_id = p.package_id and e.variant = 'locker' and e.event_name = 'Deposited'
      order by e.sequence desc limit 1
    ) dep on true
    where p.current_status = 'IN_LOCKER' and dep.occurred_at <= ${cutoff}::timestamptz
      and not exists (
        select 1 from package_events r
        where r.package_id = p.package_id and r.variant = 'locker' and r.event_name = any(${blocking}::text[]) and r.sequence > dep.sequence)
    order by dep.occurred_at
    limit ${limit}
    for update of p`.execute(trx)
  return rows
}
