import type { Insertable } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { ShelfRow, ShelfTable } from './tables.js'

const SHELF_COLUMNS = ['sub_id', 'site_id', 'code', 'kind', 'created_at'] as const

export async function findShelf(ex: Executor, subId: string, siteId: string): Promise<ShelfRow | undefined> {
  return ex
    .selectFrom('shelves')
    .select(SHELF_COLUMNS)
    .where('sub_id', '=', subId)
    .where('site_id', '=', siteId)
    .executeTakeFirst()
}

export async function findShelfByCode(ex: Executor, subId: string, code: string): Promise<ShelfRow | undefined> {
  return ex
    .selectFrom('shelves')
    .select(SHELF_COLUMNS)
    .where('sub_id', '=', subId)
    .where('code', '=', code)
    .executeTakeFirst()
}

/** The subscription's shelves, or those of `siteIds`; at most `limit`, in code order. */
export async function listShelves(
  ex: Executor,
  subId: string,
  opts: { siteIds?: string[]; limit: number },
): Promise<ShelfRow[]> {
  let q = ex.selectFrom('shelves').select(SHELF_COLUMNS).where('sub_id', '=', subId)
  if (opts.siteIds) {
    if (opts.siteIds.length === 0) return []
    q = q.where('site_id', 'in', opts.siteIds)
  }
  return q.orderBy('code').limit(opts.limit).execute()
}

/** Inserts the shelf, or changes the kind of the one there; its code never changes once printed. */
export async function upsertShelf(ex: Executor, row: Insertable<ShelfTable>): Promise<ShelfRow> {
  return ex
    .insertInto('shelves')
    .values(row)
    .onConflict((oc) => oc.columns(['sub_id', 'site_id']).doUpdateSet({ kind: (eb) => eb.ref('excluded.kind') }))
    .returning(SHELF_COLUMNS)
    .executeTakeFirstOrThrow()
}

export async function deleteShelf(ex: Executor, subId: string, siteId: string): Promise<boolean> {
  const r = await ex.deleteFrom('shelves').where('sub_id', '=', subId).where('site_id', '=', siteId).executeTakeFirst()
  return Number(r.numDeletedRows) > 0
}

/** Holds the shelf's row until the transaction ends: its audits are recorded one after another. */
export async function lockShelf(ex: Executor, subId: string, siteId: string): Promise<void> {
  await ex
    .selectFrom('shelves')
    .select('site_id')
    .where('sub_id', '=', subId)
    .where('site_id', '=', siteId)
    .forUpdate()
    .executeTakeFirst()
}
