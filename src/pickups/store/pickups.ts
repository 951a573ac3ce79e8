import { sql, type ColumnType, type Insertable, type Selectable } from 'kysely'
import type { PickupTable } from '../../platform/db/tables.js'
import type { Executor } from '../../platform/db/transaction.js'
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
 * name it (read here, with their names, rather than once per pickup through the sites service).
 */
export async function sitesOfPickups(
  db: Executor,
  subId: string,
  pickupIds: string[],
): Promise<Map<string, Array<{ inboundSiteId: string; name: string }>>> {
  const out = new Map<string, Array<{ inboundSiteId: string; name: string }>>()
  if (pickupIds.length === 0) return out
  const rows = await db
    .selectFrom('package_activities as a')
    .innerJoin('inbound_sites as s', (j) => j.onRef('s.site_id', '=', 'a.site_id').onRef('s.sub_id', '=', 'a.sub_id'))
    .select(['a.pickup_id', 's.site_id', 's.name'])
    .distinct()
    .where('a.sub_id', '=', subId)
    .where('a.pickup_id', 'in', pickupIds)
    .orderBy('a.pickup_id')
    .orderBy('s.name')
    .execute()
  for (const r of rows) {
    const list = out.get(r.pickup_id!) ?? []
    list.push({ inboundSiteId: r.site_id, name: r.name })
    out.set(r.pickup_id!, list)
  }
  return out
}

/**
 * Deletes up to `limit` registered pickup codes (pickup_codes) that no package needs any more:
 * handed out before `before`, and every package under them finished (FINISHED statuses, or
 * archived) and unchanged since `before`. A code an IN_TRANSIT package keeps is kept: the package
 * shows it again when it arrives. Returns how many went.
 */
export async function purgeFinishedCodes(
  db: Executor,
  before: Date,
  finished: readonly string[],
  limit: number,
): Promise<number> {
  const { rows } = await sql<{ code: string }>`
    delete from pickup_codes pc
    where (pc.sub_id, pc.code) in (
      select c.sub_id, c.code from pickup_codes c
      where c.created_at < ${before}::timestamptz
        and not exists (
          select 1 from packages p
          where p.sub_id = c.sub_id and p.pickup_code = c.code
            and (p.updated_at >= ${before}::timestamptz
                 or (not p.archived and p.current_status not in (${sql.join([...finished])}))))
      order by c.created_at
      limit ${limit})
    returning pc.code`.execute(db)
  return rows.length
}
