import { sql, type Insertable, type Selectable } from 'kysely'
import type { PackageEventTable } from '../../events/index.js'
import type { PackageActivityTable, PackageTable } from '../../platform/db/tables.js'
import type { FieldSpec } from '../model/field-kinds.js'
import { NOT_WAITING } from '../model/statuses.js'
import { FIELD_ENTRIES } from '../model/fields.js'
import type { ChangeColumn, FieldColumn } from '../model/field-types.js'

// The columns the package statements read and write, each list derived from the field registry, and
// the CTEs that append a statement's activities and outbox events.

export type PackageRow = Selectable<PackageTable>
export type ActivityRow = Selectable<PackageActivityTable>

/** Columns that are no field of the record: the rules and the webhook jobs keep them. */
export const BOOKKEEPING_COLUMNS = ['activity_count', 'event_count', 'archived_at'] as const
export type BookkeepingColumn = (typeof BOOKKEEPING_COLUMNS)[number]
/** Every column of the table is a field's or bookkeeping: a column added to the table alone does not compile. */
const everyColumn: [Exclude<keyof PackageTable, FieldColumn | BookkeepingColumn>] extends [never] ? true : never = true

export const fieldColumns = (keep: (f: FieldSpec) => boolean) => [
  ...new Set(FIELD_ENTRIES.flatMap(([, f]) => (f.column && keep(f) ? [f.column] : []))),
]
export const PACKAGE_COLUMNS = [...fieldColumns(() => true), ...BOOKKEEPING_COLUMNS] as ReadonlyArray<
  FieldColumn | BookkeepingColumn
>
void everyColumn
/** Statuses of packages whose code a new package does not join (statuses.ts NOT_WAITING). */
export const WAITING_EXCLUDED = NOT_WAITING.map((s) => sql.lit(s))

export const ACTIVITY_COLUMNS = [
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
  'pickup_id',
  'occurred_at',
] as const
export const EVENT_COLUMNS = [
  'event_id',
  'sub_id',
  'package_id',
  'variant',
  'event_name',
  'sequence',
  'occurred_at',
  'data',
] as const

export const columns = (names: readonly string[], from?: string) =>
  sql.raw(names.map((c) => (from ? `${from}.${c}` : c)).join(', '))
/** Rows as one JSON parameter; columns that hold JSON text go in as JSON, not as strings. */
export const jsonRows = (rows: ReadonlyArray<Record<string, unknown>>, jsonColumn: string) =>
  JSON.stringify(
    rows.map((r) =>
      typeof r[jsonColumn] === 'string' ? { ...r, [jsonColumn]: JSON.parse(r[jsonColumn]) as unknown } : r,
    ),
  )

/**
 * The activities and events of a package statement, as its last two CTEs: inserted only for the
 * packages that the CTE `written` returns (those the statement did write).
 */
export const historyOf = (
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
export const CHANGE_COLUMNS = [
  ...fieldColumns((f) => f.writtenBy === 'change'),
  ...BOOKKEEPING_COLUMNS,
] as ReadonlyArray<ChangeColumn | BookkeepingColumn>

/** A new package with its first activity and that activity's events. */
export interface NewPackage {
  package: Insertable<PackageTable>
  activity: Insertable<PackageActivityTable>
  events: Array<Insertable<PackageEventTable>>
}
