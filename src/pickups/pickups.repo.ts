import type { Insertable, Selectable } from 'kysely'
import type { PickupTable } from '../db/tables.js'
import type { Executor } from '../db/transaction.js'

export type PickupRow = Selectable<PickupTable>

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
