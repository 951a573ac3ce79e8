import { sql, type ColumnType, type Insertable, type Selectable } from 'kysely'
import type { PickupTable } from '../db/tables.js'
import type { Executor } from '../db/transaction.js'

export type PickupRow = Selectable<PickupTable>

declare module '../db/tables.js' {
  interface Database {
    pickup_code_checks: { sub_id: string; holder: string; held_until: ColumnType<Date, Date | string, Date | string> }
  }
}

const COLUMNS = [
  'pickup_id',
  'sub_id',
  'code',
  'contact_id',
  'given_to_contact_id',
  'given_to_name',
  'package_ids',
  'images',
  'comment',
  'user_name',
  'clerk',
  'created_at',
] as const

export async function insertPickup(db: Executor, row: Insertable<PickupTable>): Promise<void> {
  await db.insertInto('pickups').values(row).execute()
}

export async function findPickup(db: Executor, subId: string, pickupId: string): Promise<PickupRow | undefined> {
  return db
    .selectFrom('pickups')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('pickup_id', '=', pickupId)
    .executeTakeFirst()
}

/**
 * Takes the subscription's pickup-code check slot for `holder` unless another holds it (and its
 * hold has not run out). The database's clock, not the service's: the hold only frees the slot of
 * a process that died holding it, and every process reads the same clock there.
 */
export async function takeCheckSlot(db: Executor, subId: string, holder: string, holdMs: number): Promise<boolean> {
  const { rows } = await sql<{ holder: string }>`
    insert into pickup_code_checks (sub_id, holder, held_until)
    values (${subId}, ${holder}, clock_timestamp() + ${`${holdMs} milliseconds`}::interval)
    on conflict (sub_id) do update set holder = excluded.holder, held_until = excluded.held_until
      where pickup_code_checks.held_until < clock_timestamp()
    returning holder`.execute(db)
  return rows.length === 1
}

export async function releaseCheckSlot(db: Executor, subId: string, holder: string): Promise<void> {
  await db.deleteFrom('pickup_code_checks').where('sub_id', '=', subId).where('holder', '=', holder).execute()
}
