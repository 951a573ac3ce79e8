import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { InboundSiteTable, SiteType } from '../../platform/db/tables.js'
import type { Selectable } from 'kysely'
import './tables.js'
import { HOLDING_FEE_COLUMNS, type HoldingFeeColumns } from '../model/holding-fee.js'
import { QUIET_HOURS_COLUMNS, type QuietHoursColumns } from '../model/quiet-hours.js'

export type SiteRow = Pick<
  Selectable<InboundSiteTable>,
  | 'site_id'
  | 'sub_id'
  | 'name'
  | 'type'
  | 'parent_id'
  | 'location_id'
  | 'ancestor_ids'
  | 'path_names'
  | 'status'
  | 'is_primary'
  | 'created_at'
  | 'updated_at'
  | 'deleted_at'
  | 'opening_hours'
  | 'signature_rule'
  | 'photo_proof_allowed'
  | (typeof HOLDING_FEE_COLUMNS)[number]
  | (typeof QUIET_HOURS_COLUMNS)[number]
>
export const COLUMNS = [
  'site_id',
  'sub_id',
  'name',
  'type',
  'parent_id',
  'location_id',
  'ancestor_ids',
  'path_names',
  'status',
  'is_primary',
  'created_at',
  'updated_at',
  'deleted_at',
  'opening_hours',
  'signature_rule',
  'photo_proof_allowed',
  ...HOLDING_FEE_COLUMNS,
  ...QUIET_HOURS_COLUMNS,
] as const

export async function findSite(
  db: Executor,
  subId: string,
  siteId: string,
  opts: { forUpdate?: boolean; includeDeleted?: boolean } = {},
): Promise<SiteRow | undefined> {
  let q = db.selectFrom('inbound_sites').select(COLUMNS).where('sub_id', '=', subId).where('site_id', '=', siteId)
  if (!opts.includeDeleted) q = q.where('deleted_at', 'is', null)
  if (opts.forUpdate) q = q.forUpdate()
  return q.executeTakeFirst()
}

export async function findSites(db: Executor, subId: string, ids: string[]): Promise<SiteRow[]> {
  if (ids.length === 0) return []
  return db
    .selectFrom('inbound_sites')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('site_id', 'in', ids)
    .execute()
}

export async function insertSite(
  db: Executor,
  row: {
    site_id: string
    sub_id: string
    name: string
    type: SiteType
    parent_id: string | null
    location_id: string | null
    ancestor_ids: string[]
    path_names: string[]
    status: 'active' | 'inactive'
    is_primary: boolean
    opening_hours: string | null
    signature_rule?: 'required' | 'optional' | 'off' | null
    photo_proof_allowed?: boolean | null
    at: Date
  } & Partial<HoldingFeeColumns> &
    Partial<QuietHoursColumns>,
): Promise<void> {
  const { at, ...rest } = row
  await db
    .insertInto('inbound_sites')
    .values({ ...rest, created_at: at, updated_at: at })
    .execute()
}

export async function clearPrimary(db: Executor, subId: string, at: Date): Promise<void> {
  await db
    .updateTable('inbound_sites')
    .set({ is_primary: false, updated_at: at })
    .where('sub_id', '=', subId)
    .where('is_primary', '=', true)
    .execute()
}

export async function updateSiteRow(
  db: Executor,
  subId: string,
  siteId: string,
  set: Partial<
    Pick<
      SiteRow,
      | 'name'
      | 'status'
      | 'is_primary'
      | 'parent_id'
      | 'location_id'
      | 'ancestor_ids'
      | 'path_names'
      | 'deleted_at'
      | 'opening_hours'
      | 'signature_rule'
      | 'photo_proof_allowed'
    >
  > &
    Partial<HoldingFeeColumns> &
    Partial<QuietHoursColumns> & { updated_at: Date },
): Promise<void> {
  await db.updateTable('inbound_sites').set(set).where('sub_id', '=', subId).where('site_id', '=', siteId).execute()
}

/**
 * Rewrites the subtree below `siteId` after a rename or move: the first `oldDepth + 1` entries of
 * each descendant's paths (the old path to the site itself) are replaced by the new ones.
 */
export async function rewriteSubtree(
  db: Executor,
  subId: string,
  siteId: string,
  oldDepth: number,
  next: { ancestorIds: string[]; pathNames: string[]; locationId: string | null },
  at: Date,
): Promise<void> {
  const cut = oldDepth + 2 // 1-based index of the first path element below the moved site
  await sql`
    update inbound_sites
       set ancestor_ids = ${sql.val(next.ancestorIds)}::text[] || ${siteId}::text || ancestor_ids[${cut}:],
           path_names = ${sql.val(next.pathNames)}::text[] || path_names[${cut}:],
           location_id = ${next.locationId},
           updated_at = ${at}
     where sub_id = ${subId} and ancestor_ids @> array[${siteId}]::text[]`.execute(db)
}

/** Active sites anywhere under `siteId` (an inactive child may still hold active grandchildren). */
export async function countActiveDescendants(db: Executor, subId: string, siteId: string): Promise<number> {
  const r = await db
    .selectFrom('inbound_sites')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('sub_id', '=', subId)
    .where(sql<boolean>`ancestor_ids @> array[${siteId}]::text[]`)
    .where('status', '=', 'active')
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow()
  return Number(r.n)
}

export async function softDeleteSubtree(db: Executor, subId: string, siteId: string, at: Date): Promise<void> {
  await db
    .updateTable('inbound_sites')
    .set({ deleted_at: at, is_primary: false, updated_at: at })
    .where('sub_id', '=', subId)
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('site_id', '=', siteId), sql<boolean>`ancestor_ids @> array[${siteId}]::text[]`]))
    .execute()
}

/** Serialises structural changes (moves) of one subscription's tree, so two moves cannot form a cycle. */
export async function lockTree(db: Executor, subId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(727002, hashtext(${subId}))`.execute(db)
}

export interface SiteFilter {
  subId: string
  nameContains?: string
  parentId?: string
  ancestorId?: string
  primaryOnly?: boolean
  updatedBefore?: Date
  updatedAfter?: Date
  status?: 'active' | 'inactive'
  locationIds?: string[]
}

const SORT_COLUMNS = {
  name: 'name',
  type: 'type',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  locationHierarchy: 'path_names',
} as const

export async function listSites(
  db: Executor,
  f: SiteFilter,
  page: { skip: number; limit: number; sort: keyof typeof SORT_COLUMNS; desc: boolean },
): Promise<{ rows: SiteRow[]; total: number }> {
  let q = db.selectFrom('inbound_sites').where('sub_id', '=', f.subId).where('deleted_at', 'is', null)
  if (f.nameContains) q = q.where(sql<boolean>`strpos(lower(name), lower(${f.nameContains})) > 0`)
  if (f.parentId) q = q.where('parent_id', '=', f.parentId)
  if (f.ancestorId) q = q.where(sql<boolean>`ancestor_ids @> array[${f.ancestorId}]::text[]`)
  if (f.primaryOnly) q = q.where('is_primary', '=', true)
  if (f.updatedBefore) q = q.where('updated_at', '<', f.updatedBefore)
  if (f.updatedAfter) q = q.where('updated_at', '>', f.updatedAfter)
  if (f.status) q = q.where('status', '=', f.status)
  if (f.locationIds) q = q.where('location_id', 'in', f.locationIds)
  const [rows, total] = await Promise.all([
    q
      .select(COLUMNS)
      .orderBy(SORT_COLUMNS[page.sort], page.desc ? 'desc' : 'asc')
      .orderBy('site_id')
      .offset(page.skip)
      .limit(page.limit)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(total.n) }
}

export async function listSitesOfLocations(db: Executor, subId: string, locationIds: string[]): Promise<SiteRow[]> {
  return db
    .selectFrom('inbound_sites')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('deleted_at', 'is', null)
    .where('location_id', 'in', locationIds)
    .orderBy('path_names')
    .execute()
}

export async function findPrimarySiteId(db: Executor, subId: string): Promise<string | undefined> {
  const r = await db
    .selectFrom('inbound_sites')
    .select('site_id')
    .where('sub_id', '=', subId)
    .where('is_primary', '=', true)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  return r?.site_id
}

/** Live sites placed at a location: while there are any, the locations domain refuses to delete it. */
export async function countLiveSitesAt(db: Executor, subId: string, locationId: string): Promise<number> {
  const r = await db
    .selectFrom('inbound_sites')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('sub_id', '=', subId)
    .where('location_id', '=', locationId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow()
  return Number(r.n)
}
