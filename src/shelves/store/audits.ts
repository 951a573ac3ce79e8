import type { Insertable, Selectable } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { ShelfAuditTable } from './tables.js'

const AUDIT_COLUMNS = [
  'audit_id',
  'sub_id',
  'site_id',
  'audited_by',
  'audited_at',
  'found_ids',
  'missing_ids',
  'misplaced_ids',
  'unknown_scans',
] as const
export type AuditRow = Selectable<ShelfAuditTable>

export async function insertAudit(ex: Executor, row: Insertable<ShelfAuditTable>): Promise<void> {
  await ex.insertInto('shelf_audits').values(row).execute()
}

export async function findAudit(ex: Executor, subId: string, auditId: string): Promise<AuditRow | undefined> {
  return ex
    .selectFrom('shelf_audits')
    .select(AUDIT_COLUMNS)
    .where('sub_id', '=', subId)
    .where('audit_id', '=', auditId)
    .executeTakeFirst()
}

/**
 * The subscription's audits, or those of the shelves `siteIds`, newest first: `limit` from `skip`.
 * Per shelf, shelf_audits_site_idx (sub_id, site_id, audited_at desc) serves the order.
 */
export async function listAudits(
  ex: Executor,
  subId: string,
  q: { siteIds?: string[]; skip: number; limit: number },
): Promise<AuditRow[]> {
  if (q.siteIds?.length === 0) return []
  let sel = ex.selectFrom('shelf_audits').select(AUDIT_COLUMNS).where('sub_id', '=', subId)
  if (q.siteIds) sel = sel.where('site_id', 'in', q.siteIds)
  return sel.orderBy('audited_at', 'desc').orderBy('audit_id', 'desc').offset(q.skip).limit(q.limit).execute()
}

/**
 * Each shelf's latest audit and what it found missing (the exceptions list, issue 30.3): one row
 * per audited shelf, read on shelf_audits_site_idx (sub_id, site_id, audited_at desc).
 */
export async function latestMissing(
  ex: Executor,
  subId: string,
): Promise<Array<Pick<AuditRow, 'audit_id' | 'site_id' | 'audited_at' | 'missing_ids'>>> {
  return ex
    .selectFrom('shelf_audits')
    .distinctOn('site_id')
    .select(['audit_id', 'site_id', 'audited_at', 'missing_ids'])
    .where('sub_id', '=', subId)
    .orderBy('site_id')
    .orderBy('audited_at', 'desc')
    .orderBy('audit_id', 'desc')
    .execute()
}
