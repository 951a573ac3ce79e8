import { sql, type ColumnType, type Insertable, type Selectable } from 'kysely'
import type { PickupTable } from '../../platform/db/tables.js'
import type { Executor } from '../../platform/db/transaction.js'
import { deliverySitesOfPickups } from '../../packages/index.js'
import { findSites } from '../../sites/index.js'
import './tables.js'

export type PickupRow = Selectable<PickupTable>

declare module '../../platform/db/tables.js' {
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
  'typed_signature',
  'holding_fees',
  'delegate',
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

export interface PickupFilter {
  subId: string
  contactId?: string
  from?: Date
  to?: Date
  offset: number
  limit: number
}

/** A page of a subscription's pickups, newest first, and how many match. */
export async function listPickups(db: Executor, f: PickupFilter): Promise<{ rows: PickupRow[]; total: number }> {
  let q = db.selectFrom('pickups').where('sub_id', '=', f.subId)
  if (f.contactId) {
    const contactId = f.contactId
    q = q.where((eb) => eb.or([eb('contact_id', '=', contactId), eb('given_to_contact_id', '=', contactId)]))
  }
  if (f.from) q = q.where('created_at', '>=', f.from)
  if (f.to) q = q.where('created_at', '<', f.to)
  const [rows, count] = await Promise.all([
    q
      .select(COLUMNS)
      .orderBy('created_at', 'desc')
      .orderBy('pickup_id', 'desc')
      .offset(f.offset)
      .limit(f.limit)
      .execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.n) }
}

/**
 * The sites where each pickup's packages were handed over: those of the DELIVERED activities that
 * name it (the packages domain's), with their names (the sites domain's), by name per pickup; read
 * here for a page of pickups rather than once per pickup through the sites service.
 */
export async function sitesOfPickups(
  db: Executor,
  subId: string,
  pickupIds: string[],
): Promise<Map<string, Array<{ inboundSiteId: string; name: string }>>> {
  const out = new Map<string, Array<{ inboundSiteId: string; name: string }>>()
  const pairs = await deliverySitesOfPickups(db, subId, pickupIds)
  if (pairs.length === 0) return out
  const names = new Map(
    (await findSites(db, subId, [...new Set(pairs.map((p) => p.site_id))])).map((s) => [s.site_id, s.name]),
  )
  for (const { pickup_id, site_id } of pairs) {
    const name = names.get(site_id)
    if (name === undefined) continue // as the join did: an activity's site is always there
    const list = out.get(pickup_id) ?? []
    list.push({ inboundSiteId: site_id, name })
    out.set(pickup_id, list)
  }
  for (const list of out.values()) list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return out
}
