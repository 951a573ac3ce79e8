import { sql, type Insertable, type Selectable } from 'kysely'
import { isUniqueViolation } from '../db/errors.js'
import type { Executor } from '../db/transaction.js'
import type { PackageActivityTable, PackageEventTable, PackageTable } from '../db/tables.js'
import type { FieldSpec } from './field-kinds.js'
import { NOT_WAITING } from './statuses.js'
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
/** Statuses of packages whose code a new package does not join (statuses.ts NOT_WAITING). */
const WAITING_EXCLUDED = NOT_WAITING.map((s) => sql.lit(s))

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
  'pickup_id',
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
  /**
   * A candidate pickup code, for a change that leaves a package without a code waiting (an
   * announced package that arrived, one un-archived): the statement gives it its receiver's waiting
   * code instead when there is one, as an add does (insertNewPackages).
   */
  pickupCode?: string | null
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
  const rows = shareCandidates(
    changes.map((c) => ({ ...c.package, event_count_before: c.eventCountBefore, pickup_code: c.pickupCode ?? null })),
  )
  const { rows: written } = await sql<{ package_id: string }>`
    with input as (
      select (j->>'event_count_before')::int as event_count_before, r.*
      from jsonb_array_elements(${jsonRows(rows, 'custom_fields')}::jsonb) j
      cross join lateral jsonb_populate_record(null::packages, j) r
    ), codes_in as (
      select sub_id, receiver_id, pickup_code, updated_at as created_at from input
    ), ${CODE_CHOICE}, changed as (
      update packages p set (${columns(CHANGE_COLUMNS)}, pickup_code) = (${columns(CHANGE_COLUMNS, 'r')}, coalesce(p.pickup_code, h.pickup_code, f.code))
      from input r
      left join held h on r.pickup_code is not null and h.sub_id = r.sub_id and h.receiver_id = r.receiver_id
      left join fresh f on f.sub_id = r.sub_id and f.code = r.pickup_code
      where p.sub_id = r.sub_id and p.package_id = r.package_id and p.version = r.version - 1 and p.event_count = r.event_count_before
      returning p.package_id
    ), ${historyOf('changed', changes)}
    select package_id from changed`.execute(db)
  return new Set(written.map((r) => r.package_id))
}

/** A new package with its first activity and that activity's events. */
export interface NewPackage {
  package: Insertable<PackageTable>
  activity: Insertable<PackageActivityTable>
  events: Array<Insertable<PackageEventTable>>
}

/**
 * New packages, each with its first activity and that activity's events, in one statement:
 * concurrent adds are written together, with one commit. The rows travel as three JSON parameters, so the statement's
 * text (and its prepared plan) is the same for one package or sixty. A package whose tracking
 * number an active package already holds (another of these included) is skipped with its activity
 * and events; the ids of those written are returned. Any other failure fails the statement, and
 * nothing of it is written.
 *
 * Pickup codes (issue 17.4), in the same statement: a package that comes with a candidate code
 * (it arrives waiting) takes instead the code of its receiver's latest waiting package, when there
 * is one, so one code collects everything a recipient has waiting; else its candidate is
 * registered in pickup_codes, whose key keeps it unique in the subscription. Packages of one
 * receiver in one statement share one candidate. A candidate that is taken (about one in 73,000
 * with ten thousand codes out) leaves the package without a code here, and the caller gives it one
 * (assignPickupCode).
 */
export async function insertNewPackages(
  db: Executor,
  adds: readonly NewPackage[],
  newPickupCode?: () => string,
): Promise<Set<string>> {
  const { rows } = await insertWithCodes(db, adds)
  if (newPickupCode) {
    const byId = new Map(adds.map((a) => [a.package.package_id, a.package]))
    for (const r of rows) {
      const p = byId.get(r.package_id)
      if (r.pickup_code !== null || !p?.pickup_code) continue
      const pkg = { sub_id: p.sub_id, package_id: r.package_id, receiver_id: p.receiver_id ?? null }
      const at = new Date(p.created_at)
      for (let tries = 0; tries < 5; tries++) if (await assignPickupCode(db, pkg, newPickupCode(), at)) break
    }
  }
  return new Set(rows.map((r) => r.package_id))
}

/**
 * The rows of one statement, those of one receiver sharing the first one's candidate code (each
 * would otherwise register a code of its own: the statement's CTEs do not see each other's rows).
 */
function shareCandidates<T extends { sub_id: string; receiver_id?: string | null; pickup_code?: string | null }>(
  rows: readonly T[],
): T[] {
  const shared = new Map<string, string>()
  return rows.map((p) => {
    if (!p.pickup_code || !p.receiver_id) return p
    const key = `${p.sub_id}\n${p.receiver_id}`
    const code = shared.get(key) ?? p.pickup_code
    shared.set(key, code)
    return code === p.pickup_code ? p : { ...p, pickup_code: code }
  })
}

/**
 * How a statement's rows with a candidate code (CTE `codes_in`: sub_id, receiver_id, pickup_code,
 * created_at) get their code: `held`, the code of each receiver's latest waiting package; `fresh`,
 * the candidates of the others, registered in pickup_codes (a taken one is skipped). A row's code
 * is then coalesce(h.pickup_code, f.code).
 */
const CODE_CHOICE = sql`held as (
      select w.sub_id, w.receiver_id, p.pickup_code
      from (select distinct sub_id, receiver_id from codes_in where pickup_code is not null and receiver_id is not null) w
      -- One index probe per receiver (packages_waiting_code_idx), however many parcels it has.
      cross join lateral (
        select p.pickup_code from packages p
        where p.sub_id = w.sub_id and p.receiver_id = w.receiver_id
          and p.pickup_code is not null and not p.archived and p.current_status not in (${sql.join(WAITING_EXCLUDED)})
        order by p.created_at desc
        limit 1
      ) p
    ), fresh as (
      insert into pickup_codes (sub_id, code, contact_id, created_at)
      select distinct on (i.sub_id, i.pickup_code) i.sub_id, i.pickup_code, i.receiver_id, i.created_at
      from codes_in i
      where i.pickup_code is not null
        and not exists (select 1 from held h where h.sub_id = i.sub_id and h.receiver_id = i.receiver_id)
      on conflict do nothing
      returning sub_id, code
    )`

/** insertNewPackages, with the code each package written got (null: none, or its candidate was taken). */
async function insertWithCodes(db: Executor, adds: readonly NewPackage[]) {
  const packages = shareCandidates(adds.map((a) => a.package))
  const inserted = PACKAGE_COLUMNS.map((c) =>
    c === 'pickup_code' ? sql`coalesce(h.pickup_code, f.code)` : sql.raw(`r.${c}`),
  )
  return sql<{ package_id: string; pickup_code: string | null }>`
    with input as (
      select * from jsonb_populate_recordset(null::packages, ${jsonRows(packages, 'custom_fields')}::jsonb)
    ), codes_in as (
      select sub_id, receiver_id, pickup_code, created_at from input
    ), ${CODE_CHOICE}, new_packages as (
      insert into packages (${columns(PACKAGE_COLUMNS)})
      select ${sql.join(inserted)} from input r
      left join held h on r.pickup_code is not null and h.sub_id = r.sub_id and h.receiver_id = r.receiver_id
      left join fresh f on f.sub_id = r.sub_id and f.code = r.pickup_code
      on conflict (sub_id, tracking_number) where not archived do nothing
      returning package_id, pickup_code
    ), ${historyOf('new_packages', adds)}
    select package_id, pickup_code from new_packages`.execute(db)
}

/**
 * Serialises the adds of one recipient's first parcels: concurrent statements (other processes,
 * other batches) would each see no waiting code for the recipient and each make one. Taken in
 * the add's transaction before its statement, whose snapshot then shows what the previous holder
 * committed. Only for recipients with no waiting code yet: the others' adds take the code they
 * find and need not wait for each other (a busy recipient's parcels are not written one at a
 * time). Keys in key order, so two batches never wait for each other in a cycle; class 727003
 * beside the other advisory locks of the service (keys 727001, 727002, 727004).
 */
export async function lockRecipients(trx: Executor, adds: readonly NewPackage[]): Promise<void> {
  const pairs = [
    ...new Map(
      adds.flatMap((a) =>
        a.package.pickup_code && a.package.receiver_id
          ? [[`${a.package.sub_id}\n${a.package.receiver_id}`, [a.package.sub_id, a.package.receiver_id]] as const]
          : [],
      ),
    ).values(),
  ]
  if (pairs.length === 0) return
  await sql`select count(*) from (
      select pg_advisory_xact_lock(727003, hashtext(o.sub_id || E'\n' || o.receiver_id)) from (
        select u.sub_id, u.receiver_id
        from unnest(${pairs.map((p) => p[0])}::text[], ${pairs.map((p) => p[1])}::text[]) u(sub_id, receiver_id)
        where not exists (
          select 1 from packages p
          where p.sub_id = u.sub_id and p.receiver_id = u.receiver_id
            and p.pickup_code is not null and not p.archived and p.current_status not in (${sql.join(WAITING_EXCLUDED)})
        )
        order by u.sub_id, u.receiver_id
      ) o
    ) l`.execute(trx)
}

/** Whether some of these adds need lockRecipients (they arrive waiting, for a receiver). */
export const needRecipientLocks = (adds: readonly NewPackage[]) =>
  adds.some((a) => a.package.pickup_code && a.package.receiver_id)

/**
 * Registers `code` for a package written without one (its candidate was taken) and gives it to
 * the package. False: this code is taken too; the caller draws another.
 */
async function assignPickupCode(
  db: Executor,
  pkg: { sub_id: string; package_id: string; receiver_id: string | null },
  code: string,
  now: Date,
): Promise<boolean> {
  const { rows } = await sql<{ code: string }>`
    with fresh as (
      insert into pickup_codes (sub_id, code, contact_id, created_at)
      values (${pkg.sub_id}, ${code}, ${pkg.receiver_id}, ${now})
      on conflict do nothing
      returning code
    )
    update packages set pickup_code = (select code from fresh)
    where sub_id = ${pkg.sub_id} and package_id = ${pkg.package_id} and pickup_code is null and exists (select 1 from fresh)
    returning pickup_code as code`.execute(db)
  return rows.length > 0
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

/** A waiting package as a pickup resolves it (statuses.ts NOT_WAITING). */
export interface WaitingPackage {
  package_id: string
  tracking_number: string
  receiver_id: string | null
  pickup_code: string | null
}

/** The subscription's waiting packages under one pickup code, or for one receiver, oldest first. */
export async function findWaiting(
  db: Executor,
  subId: string,
  by: { code: string } | { receiverId: string },
): Promise<WaitingPackage[]> {
  let q = db
    .selectFrom('packages')
    .select(['package_id', 'tracking_number', 'receiver_id', 'pickup_code'])
    .where('sub_id', '=', subId)
    .where('archived', '=', false)
    .where('current_status', 'not in', NOT_WAITING)
  q = 'code' in by ? q.where('pickup_code', '=', by.code) : q.where('receiver_id', '=', by.receiverId)
  return q.orderBy('created_at').orderBy('package_id').limit(1000).execute()
}

/** Whether the subscription ever handed out this code (a used code is told apart from a wrong one). */
export async function pickupCodeIssued(db: Executor, subId: string, code: string): Promise<boolean> {
  const row = await db
    .selectFrom('pickup_codes')
    .select('code')
    .where('sub_id', '=', subId)
    .where('code', '=', code)
    .executeTakeFirst()
  return row !== undefined
}

/** These packages of the subscription under their row locks, taken in id order (two pickups never deadlock). */
export async function lockPackages(trx: Executor, subId: string, packageIds: string[]): Promise<PackageRow[]> {
  return trx
    .selectFrom('packages')
    .select(PACKAGE_COLUMNS)
    .where('sub_id', '=', subId)
    .where('package_id', 'in', packageIds)
    .orderBy('package_id')
    .forUpdate()
    .execute()
}
