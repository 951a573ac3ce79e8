import { sql } from 'kysely'
import type { Executor } from '../db/transaction.js'

// The scheduled jobs' SQL. The locker jobs read and update the packages table: they write events
// into the outbox, and a package's events take their per-package `sequence` from
// packages.event_count under the package's row lock, exactly as the packages service does.

/** One holder at a time across every process, for the rest of the transaction; false: someone else runs it. */
export async function tryJobLock(trx: Executor, job: string): Promise<boolean> {
  const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(hashtext(${`mailroom:webhooks:${job}`})) as ok`.execute(trx)
  return rows[0]?.ok === true
}

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
export async function dueLockerStays(trx: Executor, eventName: 'PickupReminder' | 'Expired', cutoff: Date, limit: number): Promise<LockerStay[]> {
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

/** Takes the next `count` event sequences of each package (their rows are locked by the caller); the first of them by package. */
export async function nextSequences(trx: Executor, packageIds: string[], count = 1): Promise<Map<string, number>> {
  if (packageIds.length === 0) return new Map()
  const rows = await trx.updateTable('packages').set((eb) => ({ event_count: eb('event_count', '+', count) }))
    .where('package_id', 'in', packageIds).returning(['package_id', 'event_count']).execute()
  return new Map(rows.map((r) => [r.package_id, r.event_count - count + 1]))
}

/** Configurations whose sweep was asked for, oldest request first, after the (time, id) `after`. */
export async function configsToSweep(db: Executor, limit: number, after?: { at: Date; configId: string }): Promise<Array<{ config_id: string; sweep_requested_at: Date }>> {
  let q = db.selectFrom('webhook_configs').select(['config_id', 'sweep_requested_at'])
    .where('sweep_requested_at', 'is not', null)
  if (after) q = q.where((eb) => eb.or([eb('sweep_requested_at', '>', after.at), eb.and([eb('sweep_requested_at', '=', after.at), eb('config_id', '>', after.configId)])]))
  const rows = await q.orderBy('sweep_requested_at').orderBy('config_id').limit(limit).execute()
  return rows as Array<{ config_id: string; sweep_requested_at: Date }>
}

/**
 * Closes up to `limit` pending deliveries of these configurations that the claim will never pick,
 * because the configuration was deleted, set in-active, or no longer subscribes to the event; one
 * being sent now is left to its worker (it is closed at a later sweep). Driven by the
 * configurations that asked for it, each read through its pending deliveries' index: the cost
 * follows what changed, not how many deliveries are pending everywhere.
 */
export async function closeUnsendable(db: Executor, configIds: string[], now: Date, limit: number): Promise<number> {
  if (configIds.length === 0) return 0
  const res = await sql`
    with doomed as (
      select d.delivery_id, c.deleted_at is not null as deleted,
             case when c.deleted_at is not null then 'configuration deleted'
                  when c.status <> 'active' then 'configuration in-active'
                  else 'event no longer subscribed' end as why
      from webhook_configs c
      join webhook_deliveries d on d.config_id = c.config_id and d.status = 'pending'
      where c.config_id = any(${configIds}::text[])
        and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
        and (c.deleted_at is not null or c.status <> 'active' or (d.package_id is not null and not (d.event_name = any(c.events))))
      limit ${limit}
      for update of d skip locked
    )
    update webhook_deliveries d
    set status = case when doomed.deleted then 'cancelled' else 'failed' end, last_error = doomed.why,
        locked_until = null, locked_by = null, updated_at = ${now}::timestamptz
    from doomed
    where d.delivery_id = doomed.delivery_id`.execute(db)
  return Number(res.numAffectedRows ?? 0)
}

/**
 * Ends the sweep of configurations asked for before `settledBefore` that hold no unsendable pending
 * delivery any more. The wait lets a fan-out or a manual retry that read the configuration before
 * its change commit its delivery first; a request made since (a newer time) keeps the flag.
 */
export async function endSweeps(db: Executor, configIds: string[], settledBefore: Date): Promise<void> {
  if (configIds.length === 0) return
  await sql`
    update webhook_configs c set sweep_requested_at = null
    where c.config_id = any(${configIds}::text[]) and c.sweep_requested_at <= ${settledBefore}::timestamptz
      and not exists (
        select 1 from webhook_deliveries d
        where d.config_id = c.config_id and d.status = 'pending'
          and (c.deleted_at is not null or c.status <> 'active' or (d.package_id is not null and not (d.event_name = any(c.events)))))`.execute(db)
}

/**
 * Deletes up to `limit` finished deliveries (their attempts cascade) created and last changed
 * before `cutoff`. It walks each configuration's listing index rather than keeping an index of
 * its own that every delivery would have to maintain.
 */
export async function purgeDeliveries(db: Executor, cutoff: Date, limit: number): Promise<number> {
  const res = await sql`
    delete from webhook_deliveries where delivery_id in (
      select old.delivery_id from webhook_configs c
      cross join lateral (
        select d.delivery_id from webhook_deliveries d
        where d.sub_id = c.sub_id and d.config_id = c.config_id and d.created_at < ${cutoff}::timestamptz
          and d.status <> 'pending' and d.updated_at < ${cutoff}::timestamptz
        limit ${limit}) old
      limit ${limit})`.execute(db)
  return Number(res.numAffectedRows ?? 0)
}

export async function purgeDeletedConfigs(db: Executor, cutoff: Date): Promise<void> {
  await db.deleteFrom('webhook_configs').where('deleted_at', '<', cutoff)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.delivery_id').whereRef('d.config_id', '=', 'webhook_configs.config_id'))))
    .execute()
}
