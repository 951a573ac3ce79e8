import { sql, type Insertable, type Selectable } from 'kysely'
import { isNotNullViolation, isUniqueViolation } from '../db/errors.js'
import type { Executor } from '../db/transaction.js'
import type { PackageActivityTable, PackageEventTable, PackageTable } from '../db/tables.js'

export type PackageRow = Selectable<PackageTable>
export type ActivityRow = Selectable<PackageActivityTable>

const PACKAGE_COLUMNS = [
  'package_id', 'sub_id', 'tracking_number', 'asset_type', 'carrier_id', 'current_status', 'damaged', 'archived', 'timezone',
  'sender_id', 'receiver_id', 'given_to_id', 'comment', 'confirmation_type', 'additional_confirmation_type', 'custom_fields',
  'site_id', 'package_location', 'locker_bank', 'locker_unit', 'user_name', 'receive_clerk', 'delivery_clerk', 'delivery_time',
  'current_route', 'version', 'activity_count', 'event_count', 'created_at', 'updated_at', 'archived_at',
] as const
const ACTIVITY_COLUMNS = ['activity_id', 'sub_id', 'package_id', 'sequence', 'status', 'site_id', 'package_location', 'locker_bank', 'locker_unit', 'damaged', 'comment', 'user_name', 'occurred_at'] as const
const EVENT_COLUMNS = ['event_id', 'sub_id', 'package_id', 'variant', 'event_name', 'sequence', 'occurred_at', 'data'] as const

export async function findPackage(db: Executor, subId: string, packageId: string, opts: { forUpdate?: boolean } = {}): Promise<PackageRow | undefined> {
  let q = db.selectFrom('packages').select(PACKAGE_COLUMNS).where('sub_id', '=', subId).where('package_id', '=', packageId)
  if (opts.forUpdate) q = q.forUpdate()
  return q.executeTakeFirst()
}

/** These packages of the subscription (those that exist). */
export async function findPackages(db: Executor, subId: string, packageIds: string[]): Promise<PackageRow[]> {
  return db.selectFrom('packages').select(PACKAGE_COLUMNS).where('sub_id', '=', subId).where('package_id', 'in', packageIds).execute()
}

/** A change to an existing package: its new columns, written only if the row is still at `expectedVersion`. */
export interface GuardedUpdate {
  subId: string
  expectedVersion: number
  set: Partial<Insertable<PackageTable>>
}

/**
 * One change to an existing package in one statement: the row updated, the activity and its outbox
 * events inserted, through data-modifying CTEs (atomic on its own; the foreign keys are checked at
 * its end). The update is guarded by the version the caller read: the activity and the events take
 * their package id from the row the update returned, so when another change got there first the
 * update returns nothing, the NOT NULL package id fails the whole statement, and nothing is
 * written. Returns false then (the caller reads again), true when the change was written.
 */
export async function updateWithActivity(db: Executor, change: { update: GuardedUpdate; activity: Insertable<PackageActivityTable>; events: Array<Insertable<PackageEventTable>> }): Promise<boolean> {
  const { subId, expectedVersion, set } = change.update
  const packageId = change.activity.package_id
  const changedRow = sql<string>`(select package_id from changed)`
  try {
    const q = db.with('changed', (q) => q.updateTable('packages').set(set).where('sub_id', '=', subId).where('package_id', '=', packageId).where('version', '=', expectedVersion).returning('package_id'))
      .with('new_activity', (q) => q.insertInto('package_activities').values({ ...change.activity, package_id: changedRow }))
    if (change.events.length > 0) await q.insertInto('package_events').values(change.events.map((e) => ({ ...e, package_id: changedRow }))).execute()
    else await q.selectFrom('changed').select('package_id').execute()
    return true
  } catch (e) {
    if (isNotNullViolation(e, 'package_id')) return false
    throw e
  }
}

/** A new package with its first activity and that activity's events. */
export interface NewPackage {
  package: Insertable<PackageTable>
  activity: Insertable<PackageActivityTable>
  events: Array<Insertable<PackageEventTable>>
}

const columns = (names: readonly string[], from?: string) => sql.raw(names.map((c) => (from ? `${from}.${c}` : c)).join(', '))
/** Rows as one JSON parameter; columns that hold JSON text go in as JSON, not as strings. */
const jsonRows = (rows: ReadonlyArray<Record<string, unknown>>, jsonColumn: string) =>
  JSON.stringify(rows.map((r) => (typeof r[jsonColumn] === 'string' ? { ...r, [jsonColumn]: JSON.parse(r[jsonColumn] as string) } : r)))

/**
 * New packages, each with its first activity and events, in one statement: concurrent adds are
 * written together, with one commit. The rows travel as three JSON parameters, so the statement's
 * text (and its prepared plan) is the same for one package or sixty. A package whose tracking
 * number an active package already holds (another of these included) is skipped with its activity
 * and events; the ids of those written are returned. Any other failure fails the statement, and
 * nothing of it is written.
 */
export async function insertNewPackages(db: Executor, adds: readonly NewPackage[]): Promise<Set<string>> {
  const { rows } = await sql<{ package_id: string }>`
    with new_packages as (
      insert into packages (${columns(PACKAGE_COLUMNS)})
      select ${columns(PACKAGE_COLUMNS, 'r')} from jsonb_populate_recordset(null::packages, ${jsonRows(adds.map((a) => a.package), 'custom_fields')}::jsonb) r
      on conflict (sub_id, tracking_number) where not archived do nothing
      returning package_id
    ), new_activities as (
      insert into package_activities (${columns(ACTIVITY_COLUMNS)})
      select ${columns(ACTIVITY_COLUMNS, 'r')} from jsonb_populate_recordset(null::package_activities, ${JSON.stringify(adds.map((a) => a.activity))}::jsonb) r
      where r.package_id in (select package_id from new_packages)
    ), new_events as (
      insert into package_events (${columns(EVENT_COLUMNS)})
      select ${columns(EVENT_COLUMNS, 'r')} from jsonb_populate_recordset(null::package_events, ${jsonRows(adds.flatMap((a) => a.events), 'data')}::jsonb) r
      where r.package_id in (select package_id from new_packages)
    )
    select package_id from new_packages`.execute(db)
  return new Set(rows.map((r) => r.package_id))
}

/**
 * The packages held under any of `numbers`, one per number: the active one, else (with
 * `includeArchived`) the latest archived. Only what a decode shows, not the whole record.
 */
export async function findByTrackingNumbers(db: Executor, subId: string, numbers: string[], includeArchived: boolean) {
  let q = db.selectFrom('packages').select(['package_id', 'tracking_number', 'current_status', 'site_id'])
    .where('sub_id', '=', subId).where('tracking_number', 'in', numbers)
  if (!includeArchived) q = q.where('archived', '=', false)
  const rows = await q.orderBy('archived', 'asc').orderBy('created_at', 'desc').execute()
  const first = new Map<string, (typeof rows)[number]>()
  for (const r of rows) if (!first.has(r.tracking_number)) first.set(r.tracking_number, r)
  return [...first.values()]
}

export async function listActivities(db: Executor, subId: string, packageId: string): Promise<ActivityRow[]> {
  return db.selectFrom('package_activities').select(ACTIVITY_COLUMNS).where('sub_id', '=', subId).where('package_id', '=', packageId).orderBy('sequence').execute()
}

/** The status a package had before it was archived (for un-archiving). */
export async function lastStatusBefore(db: Executor, subId: string, packageId: string, excluded: string): Promise<string | undefined> {
  const row = await db.selectFrom('package_activities').select('status').where('sub_id', '=', subId).where('package_id', '=', packageId)
    .where('status', '!=', excluded).orderBy('sequence', 'desc').limit(1).executeTakeFirst()
  return row?.status
}

export function isActiveTrackingConflict(e: unknown): boolean {
  return isUniqueViolation(e, 'packages_active_tracking_uq')
}

export { sql }
