import { sql, type Insertable, type Selectable } from 'kysely'
import { isUniqueViolation } from '../../platform/db/errors.js'
import type { Executor } from '../../platform/db/transaction.js'
import type { PackageEventTable } from '../../events/tables.js'
import type { PackageActivityTable, PackageTable } from '../../platform/db/tables.js'
import type { FieldSpec } from '../model/field-kinds.js'
import { NOT_WAITING } from '../model/statuses.js'
import { FIELD_ENTRIES } from '../model/fields.js'
import type { ChangeColumn, FieldColumn } from '../model/field-types.js'

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
   * A candidate pickup code, for a change after which the package waits under a code it does not
   * hold yet (rules.ts withPickupCandidate: an announced package that arrived, one set back to
   * waiting or un-archived, one whose receiver was corrected): the statement gives it its
   * receiver's waiting code instead when there is one, as an add does (insertNewPackages). Without
   * one the package keeps its code.
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
 * A change with a candidate pickup code takes its receiver's waiting code or registers the
 * candidate, as an add does (insertNewPackages, settleCodes); the others keep their code. Needs
 * the caller's transaction when a change has a candidate (packages/model/writes.ts opens one).
 */
export async function writeChanges(
  db: Executor,
  changes: readonly PackageChange[],
  newPickupCode?: () => string,
): Promise<Set<string>> {
  const rows = shareCandidates(
    changes.map((c) => ({ ...c.package, event_count_before: c.eventCountBefore, pickup_code: c.pickupCode ?? null })),
  )
  const { rows: written } = await sql<CodeOutcome>`
    with input as (
      select (j->>'event_count_before')::int as event_count_before, r.*
      from jsonb_array_elements(${jsonRows(rows, 'custom_fields')}::jsonb) j
      cross join lateral jsonb_populate_record(null::packages, j) r
    ), codes_in as (
      select sub_id, receiver_id, pickup_code, updated_at as created_at from input
    ), ${CODE_CHOICE}, changed as (
      update packages p set (${columns(CHANGE_COLUMNS)}, pickup_code) = (${columns(CHANGE_COLUMNS, 'r')},
        case when r.pickup_code is null then p.pickup_code else coalesce(h.pickup_code, f.code) end)
      from input r
      left join held h on r.pickup_code is not null and h.sub_id = r.sub_id and h.receiver_id = r.receiver_id
      left join fresh f on f.sub_id = r.sub_id and f.code = r.pickup_code
      where p.sub_id = r.sub_id and p.package_id = r.package_id and p.version = r.version - 1 and p.event_count = r.event_count_before
      returning p.package_id, p.sub_id, p.receiver_id, p.pickup_code, p.updated_at as at, f.code is not null as fresh
    ), ${historyOf('changed', changes)}
    select package_id, sub_id, receiver_id, pickup_code, at, fresh from changed`.execute(db)
  await settleCodes(
    db,
    written,
    new Set(changes.filter((c) => c.pickupCode).map((c) => c.package.package_id)),
    newPickupCode,
  )
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
 * with ten thousand codes out) leaves the package without a code here, and another is drawn
 * (settleCodes). A receiver given a new code is checked again under its lock (adoptCommittedCodes):
 * needs the caller's transaction.
 */
export async function insertNewPackages(
  db: Executor,
  adds: readonly NewPackage[],
  newPickupCode?: () => string,
): Promise<Set<string>> {
  const { rows } = await insertWithCodes(db, adds)
  const wanted = new Set(adds.filter((a) => a.package.pickup_code).map((a) => a.package.package_id))
  await settleCodes(db, rows, wanted, newPickupCode)
  return new Set(rows.map((r) => r.package_id))
}

/** A package a statement wrote, with the code it got and whether that code is one the statement registered. */
interface CodeOutcome {
  package_id: string
  sub_id: string
  receiver_id: string | null
  pickup_code: string | null
  at: Date
  fresh: boolean
}

/**
 * After a statement that chose codes (`wanted`: the ids that came with a candidate): packages
 * whose candidate was taken get another, one per receiver as the candidate was (assignPickupCode);
 * then each receiver for whom a new code was registered is checked under its lock
 * (adoptCommittedCodes).
 */
async function settleCodes(
  db: Executor,
  written: readonly CodeOutcome[],
  wanted: ReadonlySet<string>,
  newPickupCode: (() => string) | undefined,
): Promise<void> {
  const made = new Map<string, { sub_id: string; receiver_id: string; code: string }>()
  const uncoded = new Map<string, CodeOutcome[]>()
  for (const r of written) {
    if (!wanted.has(r.package_id)) continue
    const key = `${r.sub_id}\n${r.receiver_id ?? r.package_id}`
    if (r.pickup_code === null) uncoded.set(key, [...(uncoded.get(key) ?? []), r])
    else if (r.fresh && r.receiver_id !== null)
      made.set(key, { sub_id: r.sub_id, receiver_id: r.receiver_id, code: r.pickup_code })
  }
  if (newPickupCode)
    for (const [key, rows] of uncoded) {
      const r = rows[0]!
      for (let tries = 0; tries < 5; tries++) {
        const code = newPickupCode()
        if (
          !(await assignPickupCode(
            db,
            r,
            rows.map((p) => p.package_id),
            code,
            new Date(r.at),
          ))
        )
          continue
        if (r.receiver_id !== null) made.set(key, { sub_id: r.sub_id, receiver_id: r.receiver_id, code })
        break
      }
    }
  await adoptCommittedCodes(db, [...made.values()])
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

/** insertNewPackages' statement: each package written, with its code (null: none, or its candidate was taken). */
async function insertWithCodes(db: Executor, adds: readonly NewPackage[]) {
  const packages = shareCandidates(adds.map((a) => a.package))
  const inserted = PACKAGE_COLUMNS.map((c) =>
    c === 'pickup_code' ? sql`coalesce(h.pickup_code, f.code)` : sql.raw(`r.${c}`),
  )
  return sql<CodeOutcome>`
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
      returning package_id, sub_id, receiver_id, pickup_code, created_at
    ), ${historyOf('new_packages', adds)}
    select n.package_id, n.sub_id, n.receiver_id, n.pickup_code, n.created_at as at,
      exists (select 1 from fresh f where f.sub_id = n.sub_id and f.code = n.pickup_code) as fresh
    from new_packages n`.execute(db)
}

/**
 * One waiting code per receiver, whatever raced. A statement that found no waiting code for a
 * receiver registered a new one; so may have a concurrent statement (another batch, another
 * process), whose snapshot did not show this one's rows either. Each such writer takes the
 * receiver's lock after its statement and holds it until its commit, then looks again with a
 * fresh snapshot: the second of two sees the first's committed parcels and moves its own (still
 * uncommitted: nobody saw them under the new code) to that code. Only writers that made a new code
 * lock; those that joined a waiting code write without waiting for anyone, and a lock holder waits
 * for nothing but its commit (no deadlock). Keys in key order, so two writers never wait for each
 * other in a cycle; class 727003 beside the other advisory locks of the service (keys 727001,
 * 727002, 727004). Needs the caller's transaction (packages/model/writes.ts opens one).
 */
async function adoptCommittedCodes(
  trx: Executor,
  made: ReadonlyArray<{ sub_id: string; receiver_id: string; code: string }>,
): Promise<void> {
  if (made.length === 0) return
  const subs = made.map((m) => m.sub_id)
  const receivers = made.map((m) => m.receiver_id)
  await sql`select count(*) from (
      select pg_advisory_xact_lock(727003, hashtext(o.sub_id || E'\n' || o.receiver_id)) from (
        select distinct u.sub_id, u.receiver_id from unnest(${subs}::text[], ${receivers}::text[]) u(sub_id, receiver_id)
        order by u.sub_id, u.receiver_id
      ) o
    ) l`.execute(trx)
  // A new statement: its snapshot shows what the previous holders of these locks committed.
  await sql`
    update packages p set pickup_code = o.code
    from (
      select u.sub_id, u.receiver_id, u.code as ours, q.pickup_code as code
      from unnest(${subs}::text[], ${receivers}::text[], ${made.map((m) => m.code)}::text[]) u(sub_id, receiver_id, code)
      cross join lateral (
        select q.pickup_code from packages q
        where q.sub_id = u.sub_id and q.receiver_id = u.receiver_id and q.pickup_code is not null and q.pickup_code <> u.code
          and not q.archived and q.current_status not in (${sql.join(WAITING_EXCLUDED)})
        order by q.created_at desc
        limit 1
      ) q
    ) o
    where p.sub_id = o.sub_id and p.pickup_code = o.ours and p.receiver_id = o.receiver_id`.execute(trx)
}

/**
 * Registers `code` for packages written without one (their candidate was taken) and gives it to
 * them. False: this code is taken too; the caller draws another.
 */
async function assignPickupCode(
  db: Executor,
  pkg: { sub_id: string; receiver_id: string | null },
  packageIds: readonly string[],
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
    where sub_id = ${pkg.sub_id} and package_id = any(${packageIds}::text[]) and pickup_code is null and exists (select 1 from fresh)
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
