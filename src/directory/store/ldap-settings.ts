import { sql, type Selectable } from 'kysely'
import type { Executor, Trx } from '../../platform/db/transaction.js'
import type { LdapRunJson, LdapSettingsTable } from './tables.js'

export type LdapSettingsRow = Omit<Selectable<LdapSettingsTable>, 'run_lease' | 'run_lease_until'>

export async function findSettings(db: Executor, subId: string): Promise<LdapSettingsRow | undefined> {
  return db
    .selectFrom('ldap_settings')
    .select([
      'sub_id',
      'enabled',
      'url',
      'bind_dn',
      'bind_password_sealed',
      'base_dn',
      'filter',
      'mapping',
      'interval_minutes',
      'next_run_at',
      'last_run',
      'updated_at',
      'max_deactivation_percent',
    ])
    .where('sub_id', '=', subId)
    .executeTakeFirst()
}

export async function upsertSettings(
  db: Executor,
  row: Omit<LdapSettingsRow, 'mapping' | 'last_run'> & { mapping: string },
): Promise<void> {
  const { sub_id: _sub, ...set } = row
  await db
    .insertInto('ldap_settings')
    .values(row)
    .onConflict((oc) => oc.column('sub_id').doUpdateSet(set))
    .execute()
}

export async function deleteSettings(db: Executor, subId: string): Promise<boolean> {
  const r = await db.deleteFrom('ldap_settings').where('sub_id', '=', subId).executeTakeFirst()
  return Number(r.numDeletedRows) > 0
}

/** The subscriptions whose sync is due. */
export async function dueSyncs(db: Executor, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('ldap_settings')
    .select('sub_id')
    .where('enabled', '=', true)
    .where('next_run_at', '<=', now)
    .orderBy('next_run_at')
    .limit(limit)
    .execute()
  return rows.map((r) => r.sub_id)
}

/**
 * The end of a lease `ms` from now on the database's clock: every process compares leases with
 * that one clock, so a process whose own clock runs ahead cannot take a lease that is still held.
 */
const leaseEnd = (ms: number) => sql<Date>`clock_timestamp() + make_interval(secs => ${ms / 1000}::float8)`

/**
 * Claims the run of the subscription's sync: its lease, held by `holder` for `ms`, taken only
 * when no one holds it (or the holder's lease lapsed on the database's clock: a process that died
 * mid-run). `due`: the scheduled run's claim, only when the run is due on the schedule's clock,
 * moving the next one on. The same claim for "sync now" and the schedule, so two runs of one
 * directory never overlap. False: held.
 */
export async function claimRun(
  db: Executor,
  subId: string,
  lease: { holder: string; ms: number },
  due?: { now: Date; next: Date },
): Promise<boolean> {
  let q = db
    .updateTable('ldap_settings')
    .set({ run_lease: lease.holder, run_lease_until: leaseEnd(lease.ms), ...(due ? { next_run_at: due.next } : {}) })
    .where('sub_id', '=', subId)
    .where((eb) =>
      eb.or([eb('run_lease_until', 'is', null), eb('run_lease_until', '<=', sql<Date>`clock_timestamp()`)]),
    )
  if (due) q = q.where('next_run_at', '<=', due.now)
  const r = await q.executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

/** Extends a lease its holder still holds (not lapsed); false: it lapsed, or someone else took it. */
export async function renewRun(db: Executor, subId: string, holder: string, ms: number): Promise<boolean> {
  const r = await db
    .updateTable('ldap_settings')
    .set({ run_lease_until: leaseEnd(ms) })
    .where('sub_id', '=', subId)
    .where('run_lease', '=', holder)
    .where('run_lease_until', '>', sql<Date>`clock_timestamp()`)
    .executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

/**
 * The fencing check of a run's write transaction, its first statement: the settings row locked
 * (a claim by another run waits for this transaction to end), then whether `holder` still holds a
 * lease that has not lapsed on the database's clock. False: the run must write nothing.
 */
export async function holdsRun(trx: Trx, subId: string, holder: string): Promise<boolean> {
  const row = await trx
    .selectFrom('ldap_settings')
    .select(sql<boolean>`run_lease = ${holder} and run_lease_until > clock_timestamp()`.as('held'))
    .where('sub_id', '=', subId)
    .forUpdate()
    .executeTakeFirst()
  return row?.held === true
}

/** Gives the lease back (only the holder's own). */
export async function releaseRun(db: Executor, subId: string, holder: string): Promise<void> {
  await db
    .updateTable('ldap_settings')
    .set({ run_lease: null, run_lease_until: null })
    .where('sub_id', '=', subId)
    .where('run_lease', '=', holder)
    .execute()
}

/**
 * The run's outcome, and its lease given back in the same write. Written while the run still holds
 * its lease, or, once it lost it, only if no run was recorded since it started (`after`: the last
 * run it saw then): the run that took the lease over records its own outcome, which is never
 * overwritten by the older run's. False: not written.
 */
export async function recordRun(
  db: Executor,
  subId: string,
  run: LdapRunJson,
  lease: { holder: string; after: string | null },
): Promise<boolean> {
  const { holder, after } = lease
  const r = await db
    .updateTable('ldap_settings')
    .set((eb) => ({
      last_run: JSON.stringify(run),
      run_lease: eb.case().when('run_lease', '=', holder).then(null).else(eb.ref('run_lease')).end(),
      run_lease_until: eb.case().when('run_lease', '=', holder).then(null).else(eb.ref('run_lease_until')).end(),
    }))
    .where('sub_id', '=', subId)
    .where((eb) => eb.or([eb('run_lease', '=', holder), eb(sql`last_run->>'runId'`, 'is not distinct from', after)]))
    .executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}
