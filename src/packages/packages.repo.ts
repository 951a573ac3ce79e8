import { sql, type Insertable, type Selectable } from 'kysely'
import { isUniqueViolation } from '../db/errors.js'
import type { Executor } from '../db/transaction.js'
import type { PackageActivityTable, PackageEventTable, PackageTable } from '../db/tables.js'
import type { FieldSpec } from './field-kinds.js'
import { FIELD_ENTRIES, type ChangeColumn, type FieldColumn } from './fields.js'

export type PackageRow = Selectable<PackageTable>
export type ActivityRow = Selectable<PackageActivityTable>

/** Columns that are no field of the record: the rules and the webhook jobs keep them. */
const BOOKKEEPING_COLUMNS = ['activity_count', 'event_count', 'archived_at'] as const
type BookkeepingColumn = (typeof BOOKKEEPING_COLUMNS)[number]
/** Every column of the table is a field's or bookkeeping: a column added to the table alone does not compile. */
const everyColumn: [Exclude<keyof PackageTable, FieldColumn | BookkeepingColumn>] extends [never] ? true : never = true

const fieldColumns = (keep: (f: FieldSpec) => boolean) => [
  ...new Set(FIELD_ENTRIES.flatMap(([, f]) => (f.column && keep(f) ? [f.column] : []))),
]
const PACKAGE_COLUMNS = [...fieldColumns(() => true), ...BOOKKEEPING_COLUMNS] as ReadonlyArray<
  FieldColumn | BookkeepingColumn
>
void everyColumn
const ACTIVITY_COLUMNS = [
  'activity_id',
  'sub_id',
  'package_id',
  'sequence',
  'status',
  'site_id',
  'package_location',
  'locker_bank',
  'locker_unit',
  'damaged',
  'comment',
  'user_name',
  'reported_by',
  'occurred_at',
] as const
const EVENT_COLUMNS = [
  'event_id',
  'sub_id',
  'package_id',
  'variant',
  'event_name',
  'sequence',
  'occurred_at',
  'data',
] as const

export async function findPackage(
  db: Executor,
  subId: string,
  packageId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<PackageRow | undefined> {
  let q = db
    .selectFrom('packages')
    .select(PACKAGE_COLUMNS)
    .where('sub_id', '=', subId)
    .where('package_id', '=', packageId)
  if (opts.forUpdate) q = q.forUpdate()
  return q.executeTakeFirst()
}

/** These packages of the subscription (those that exist). */
export async function findPackages(db: Executor, subId: string, packageIds: string[]): Promise<PackageRow[]> {
  return db
    .selectFrom('packages')
    .select(PACKAGE_COLUMNS)
    .where('sub_id', '=', subId)
    .where('package_id', 'in', packageIds)
    .execute()
}

const columns = (names: readonly string[], from?: string) =>
  sql.raw(names.map((c) => (from ? `${from}.${c}` : c)).join(', '))
/** Rows as one JSON parameter; columns that hold JSON text go in as JSON, not as strings. */
const jsonRows = (rows: ReadonlyArray<Record<string, unknown>>, jsonColumn: string) =>
  JSON.stringify(
    rows.map((r) =>
      typeof r[jsonColumn] === 'string' ? { ...r, [jsonColumn]: JSON.parse(r[jsonColumn]) as unknown } : r,
    ),
  )

/**
 * The activities and events of a package statement, as its last two CTEs: inserted only for the
 * packages that the CTE `written` returns (those the statement did write).
 */
const historyOf = (
  written: 'changed' | 'new_packages',
  items: ReadonlyArray<{ activity: Insertable<PackageActivityTable>; events: Array<Insertable<PackageEventTable>> }>,
) => sql`
    new_activities as (
      insert into package_activities (${columns(ACTIVITY_COLUMNS)})
      select ${columns(ACTIVITY_COLUMNS, 'r')} from jsonb_populate_recordset(null::package_activities, ${JSON.stringify(items.map((i) => i.activity))}::jsonb) r
      where r.package_id in (select package_id from ${sql.raw(written)})
    ), new_events as (
      insert into package_events (${columns(EVENT_COLUMNS)})
      select ${columns(EVENT_COLUMNS, 'r')} from jsonb_populate_recordset(null::package_events, ${jsonRows(
        items.flatMap((i) => i.events),
        'data',
      )}::jsonb) r
      where r.package_id in (select package_id from ${sql.raw(written)})
    )`

/** The columns a change to an existing package writes (the rest are fixed at the add). */
const CHANGE_COLUMNS = [...fieldColumns((f) => f.writtenBy === 'change'), ...BOOKKEEPING_COLUMNS] as ReadonlyArray<
  ChangeColumn | BookkeepingColumn
>

/**
 * One change to an existing package: the package's columns after it, where `version` is the new
 * version (the row is written only while it is still at `version - 1`), the activity it appends
 * and that activity's outbox events.
 */
export interface PackageChange {
  package: Pick<PackageRow, 'package_id' | 'sub_id' | ChangeColumn | BookkeepingColumn>
  /**
   * The event count the change was computed from (its events are numbered after it). Guarded as the
   * version is: the webhook jobs number their locker events without changing the version.
   */
  eventCountBefore: number
  activity: Insertable<PackageActivityTable>
  events: Array<Insertable<PackageEventTable>>
}

/**
 * Changes to existing packages in one statement: concurrent updates are written together, with
 * one commit, as adds are (insertNewPackages). Each row is guarded by the version and event count
 * its change was computed from: a package that another change got to first is left alone with its
 * activity and events, and is not among the ids returned, so its caller reads it again. One package at most
 * once per call (two changes computed from one version cannot both hold). Any other failure (a
 * tracking number another active package holds) fails the statement, and nothing of it is written.
 */
export async function writeChanges(db: Executor, changes: readonly PackageChange[]): Promise<Set<string>> {
  const { rows } = await sql<{ package_id: string }>`
    with changed as (
      update packages p set (${columns(CHANGE_COLUMNS)}) = (${columns(CHANGE_COLUMNS, 'r')})
      from jsonb_array_elements(${jsonRows(
        changes.map((c) => ({ ...c.package, event_count_before: c.eventCountBefore })),
        'custom_fields',
      )}::jsonb) j
      cross join lateral jsonb_populate_record(null::packages, j) r
      where p.sub_id = r.sub_id and p.package_id = r.package_id and p.version = r.version - 1 and p.event_count = (j->>'event_count_before')::int
      returning p.package_id
    ), ${historyOf('changed', changes)}
    select package_id from changed`.execute(db)
  return new Set(rows.map((r) => r.package_id))
}

/** A new package with its first activity and that activity's events. */
export interface NewPackage {
  package: Insertable<PackageTable>
  activity: Insertable<PackageActivityTable>
  events: Array<Insertable<PackageEventTable>>
}

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
      select ${columns(PACKAGE_COLUMNS, 'r')} from jsonb_populate_recordset(null::packages, ${jsonRows(
        adds.map((a) => a.package),
        'custom_fields',
      )}::jsonb) r
      on conflict (sub_id, tracking_number) where not archived do nothing
      returning package_id
    ), ${historyOf('new_packages', adds)}
    select package_id from new_packages`.execute(db)
  return new Set(rows.map((r) => r.package_id))
}

/**
 * The packages held under any of `numbers`, one per number: the active one, else (with
 * `includeArchived`) the latest archived. Only what a decode once showed: kept as the former decode lookup the bench compares with.
 */
export async function findByTrackingNumbers(db: Executor, subId: string, numbers: string[], includeArchived: boolean) {
  let q = db
    .selectFrom('packages')
    .select(['package_id', 'tracking_number', 'current_status', 'site_id'])
    .where('sub_id', '=', subId)
    .where('tracking_number', 'in', numbers)
  if (!includeArchived) q = q.where('archived', '=', false)
  const rows = await q.orderBy('archived', 'asc').orderBy('created_at', 'desc').execute()
  const first = new Map<string, (typeof rows)[number]>()
  for (const r of rows) if (!first.has(r.tracking_number)) first.set(r.tracking_number, r)
  return [...first.values()]
}

export async function listActivities(db: Executor, subId: string, packageId: string): Promise<ActivityRow[]> {
  return db
    .selectFrom('package_activities')
    .select(ACTIVITY_COLUMNS)
    .where('sub_id', '=', subId)
    .where('package_id', '=', packageId)
    .orderBy('sequence')
    .execute()
}

/** The status a package had before it was archived (for un-archiving). */
export async function lastStatusBefore(
  db: Executor,
  subId: string,
  packageId: string,
  excluded: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('package_activities')
    .select('status')
    .where('sub_id', '=', subId)
    .where('package_id', '=', packageId)
    .where('status', '!=', excluded)
    .orderBy('sequence', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row?.status
}

export function isActiveTrackingConflict(e: unknown): boolean {
  return isUniqueViolation(e, 'packages_active_tracking_uq')
}

export { sql }

/** A database sequence for issued tracking numbers: unique across every process and machine sharing the database. */
export async function nextTrackingSequence(db: Executor): Promise<bigint> {
  const { rows } = await sql<{ v: string }>`select nextval('tracking_number_seq')::text as v`.execute(db)
  return BigInt(rows[0]!.v)
}
