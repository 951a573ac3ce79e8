import { sql, type Insertable, type Selectable } from 'kysely'
import { isUniqueViolation } from '../db/errors.js'
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

export async function findPackage(db: Executor, subId: string, packageId: string, opts: { forUpdate?: boolean } = {}): Promise<PackageRow | undefined> {
  let q = db.selectFrom('packages').select(PACKAGE_COLUMNS).where('sub_id', '=', subId).where('package_id', '=', packageId)
  if (opts.forUpdate) q = q.forUpdate()
  return q.executeTakeFirst()
}

export async function updatePackageRow(db: Executor, subId: string, packageId: string, set: Partial<Insertable<PackageTable>>): Promise<void> {
  await db.updateTable('packages').set(set).where('sub_id', '=', subId).where('package_id', '=', packageId).execute()
}

/**
 * One change in one statement: the activity and its outbox events (and, for an add, the package
 * row) through data-modifying CTEs. A single statement is atomic on its own, and the foreign keys
 * are checked at its end, so the order of the CTEs does not matter.
 */
export async function insertChange(db: Executor, change: { package?: Insertable<PackageTable>; activity: Insertable<PackageActivityTable>; events: Array<Insertable<PackageEventTable>> }): Promise<void> {
  if (change.package) {
    const pkg = change.package
    await db.with('new_package', (q) => q.insertInto('packages').values(pkg))
      .with('new_activity', (q) => q.insertInto('package_activities').values(change.activity))
      .insertInto('package_events').values(change.events).execute()
    return
  }
  await db.with('new_activity', (q) => q.insertInto('package_activities').values(change.activity))
    .insertInto('package_events').values(change.events).execute()
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
