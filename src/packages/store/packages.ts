import { sql, type Insertable } from 'kysely'
import { isUniqueViolation } from '../../platform/db/errors.js'
import type { Executor } from '../../platform/db/transaction.js'
import type { PackageEventTable } from '../../events/index.js'
import type { PackageActivityTable } from '../../platform/db/tables.js'
import type { ChangeColumn } from '../model/field-types.js'
import {
  ACTIVITY_COLUMNS,
  CHANGE_COLUMNS,
  PACKAGE_COLUMNS,
  columns,
  historyOf,
  jsonRows,
  type ActivityRow,
  type BookkeepingColumn,
  type NewPackage,
  type PackageRow,
} from './columns.js'
import { CODE_CHOICE, insertWithCodes, settleCodes, shareCandidates, type CodeOutcome } from './pickup-codes.js'
import { NOT_WAITING } from '../model/statuses.js'

export type { ActivityRow, NewPackage, PackageRow } from './columns.js'

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
