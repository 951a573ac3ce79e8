import { sql, type Selectable } from 'kysely'
import type { CarrierTable } from '../../platform/db/tables.js'
import type { Executor } from '../../platform/db/transaction.js'

const COLUMNS = ['carrier_id', 'sub_id', 'name', 'scac', 'barcode_aware', 'services'] as const
export type CarrierRow = Pick<Selectable<CarrierTable>, (typeof COLUMNS)[number]>

/** Built-in rows (sub_id null) and the subscription's own: what a subscription can see. */
function visible(db: Executor, subId: string) {
  return db.selectFrom('carriers').where((eb) => eb.or([eb('sub_id', 'is', null), eb('sub_id', '=', subId)]))
}

/** The whole visible catalogue, by name. It is small (a dozen built-ins plus a few couriers). */
export async function listVisibleCarriers(db: Executor, subId: string): Promise<CarrierRow[]> {
  return visible(db, subId)
    .select(COLUMNS)
    .orderBy(sql`lower(name)`)
    .orderBy('carrier_id')
    .execute()
}

export async function findVisibleCarriers(db: Executor, subId: string, ids: string[]): Promise<CarrierRow[]> {
  if (ids.length === 0) return []
  return visible(db, subId).select(COLUMNS).where('carrier_id', 'in', ids).execute()
}

export async function findVisibleByName(db: Executor, subId: string, name: string): Promise<CarrierRow | undefined> {
  return visible(db, subId)
    .select(COLUMNS)
    .where(sql`lower(name)`, '=', sql`lower(${name})`)
    .executeTakeFirst()
}

export async function insertCarrier(
  db: Executor,
  row: { carrier_id: string; sub_id: string; name: string; barcode_aware: boolean; services: string[]; at: Date },
): Promise<void> {
  const { at, services, ...rest } = row
  await db
    .insertInto('carriers')
    .values({ ...rest, scac: null, services: JSON.stringify(services), created_at: at })
    .execute()
}

/** One of the subscription's own couriers (never a built-in, never another subscription's). */
export async function findOwnCarrier(db: Executor, subId: string, carrierId: string): Promise<CarrierRow | undefined> {
  return db
    .selectFrom('carriers')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('carrier_id', '=', carrierId)
    .executeTakeFirst()
}

/** Whether the id is a built-in carrier's. */
export async function isBuiltIn(db: Executor, carrierId: string): Promise<boolean> {
  const row = await db
    .selectFrom('carriers')
    .select('carrier_id')
    .where('sub_id', 'is', null)
    .where('carrier_id', '=', carrierId)
    .executeTakeFirst()
  return row !== undefined
}

export async function updateCarrier(
  db: Executor,
  subId: string,
  carrierId: string,
  set: { name: string; barcode_aware: boolean; services: string[] },
): Promise<boolean> {
  const result = await db
    .updateTable('carriers')
    .set({ name: set.name, barcode_aware: set.barcode_aware, services: JSON.stringify(set.services) })
    .where('sub_id', '=', subId)
    .where('carrier_id', '=', carrierId)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export async function deleteCarrier(db: Executor, subId: string, carrierId: string): Promise<void> {
  await db.deleteFrom('carriers').where('sub_id', '=', subId).where('carrier_id', '=', carrierId).execute()
}
