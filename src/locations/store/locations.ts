import { sql, type Selectable } from 'kysely'
import type { AddressJson, LocationTable } from '../../platform/db/tables.js'
import type { Executor } from '../../platform/db/transaction.js'

type LocationWithDeletion = LocationTable
const typed = (db: Executor) => db

const COLUMNS = [
  'location_id',
  'sub_id',
  'name',
  'address',
  'timezone',
  'carrier_ids',
  'created_at',
  'updated_at',
  'deleted_at',
] as const
export type LocationRow = Pick<Selectable<LocationWithDeletion>, (typeof COLUMNS)[number]>

export async function insertLocation(
  db: Executor,
  row: { location_id: string; sub_id: string; name: string; address: AddressJson; timezone: string; at: Date },
): Promise<void> {
  const { at, address, ...rest } = row
  await typed(db)
    .insertInto('locations')
    .values({ ...rest, address: JSON.stringify(address), carrier_ids: [], created_at: at, updated_at: at })
    .execute()
}

export async function findLocation(
  db: Executor,
  subId: string,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<LocationRow | undefined> {
  let q = typed(db)
    .selectFrom('locations')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('location_id', '=', id)
    .where('deleted_at', 'is', null)
  if (opts.forUpdate) q = q.forUpdate()
  return q.executeTakeFirst()
}

export async function findLocations(
  db: Executor,
  subId: string,
  ids: string[],
  opts: { includeDeleted?: boolean } = {},
): Promise<LocationRow[]> {
  if (ids.length === 0) return []
  let q = typed(db).selectFrom('locations').select(COLUMNS).where('sub_id', '=', subId).where('location_id', 'in', ids)
  if (!opts.includeDeleted) q = q.where('deleted_at', 'is', null)
  return q.execute()
}

export async function updateLocation(
  db: Executor,
  subId: string,
  id: string,
  set: { name?: string; address?: AddressJson; timezone?: string; carrier_ids?: string[]; deleted_at?: Date; at: Date },
): Promise<void> {
  const { at, address, ...rest } = set
  await typed(db)
    .updateTable('locations')
    .set({ ...rest, ...(address ? { address: JSON.stringify(address) } : {}), updated_at: at })
    .where('sub_id', '=', subId)
    .where('location_id', '=', id)
    .where('deleted_at', 'is', null)
    .execute()
}

/** Takes a deleted carrier out of every location's list of the subscription (an emptied list offers the whole catalogue again). */
export async function removeCarrier(db: Executor, subId: string, carrierId: string, at: Date): Promise<void> {
  await typed(db)
    .updateTable('locations')
    .set({ carrier_ids: sql`array_remove(carrier_ids, ${carrierId})`, updated_at: at })
    .where('sub_id', '=', subId)
    .where(sql<boolean>`${carrierId} = any(carrier_ids)`)
    .execute()
}

export async function listLocations(
  db: Executor,
  subId: string,
  page: { skip: number; limit: number },
): Promise<{ rows: LocationRow[]; total: number }> {
  const q = typed(db).selectFrom('locations').where('sub_id', '=', subId).where('deleted_at', 'is', null)
  const [rows, total] = await Promise.all([
    q
      .select(COLUMNS)
      .orderBy(sql`lower(name)`)
      .orderBy('location_id')
      .offset(page.skip)
      .limit(page.limit)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(total.n) }
}
