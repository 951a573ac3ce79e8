import type { Db } from '../platform/db/database.js'
import { AppError, invalid } from '../platform/kit/errors.js'
import type { SiteInfo } from '../sites/index.js'
import * as audits from './store/audits.js'
import * as repo from './store/shelves.js'
import { SHELF_ERRORS } from './model/errors.js'
import type { Audit, AuditListQuery, AuditSummary } from './api/schemas.js'
import type { ShelfPackages, ShelfSites } from './service.js'
import { auditItem, toShelf } from './view.js'

/** The most shelves a site's audit list spans (as the shelf list). */
const SHELF_LIMIT = 1_000

export type ShelfAuditsService = ReturnType<typeof createShelfAuditsService>

/**
 * Past shelf audits read back (issue 30.1): a list newest first, per shelf or per site (its shelves
 * and those under it), and one audit with its parcels as their records read now.
 */
export function createShelfAuditsService(deps: {
  db: Db
  sites: ShelfSites
  packages: Pick<ShelfPackages, 'recordsByIds'>
}) {
  const { db, sites, packages } = deps

  /** The shelves a site filter names: the site itself when a shelf, and the shelves under it. */
  async function shelvesUnder(subId: string, siteId: string): Promise<string[]> {
    const rows = await repo.listShelves(db, subId, { limit: SHELF_LIMIT })
    const infos = await sites.getInfos(subId, [siteId, ...rows.map((r) => r.site_id)])
    if (!infos.get(siteId) && !rows.some((r) => r.site_id === siteId))
      throw invalid('inboundSiteId', `No site ${siteId}.`)
    return rows
      .filter((r) => r.site_id === siteId || (infos.get(r.site_id)?.ancestorlist.includes(siteId) ?? false))
      .map((r) => r.site_id)
  }

  return {
    async listAudits(subId: string, q: AuditListQuery): Promise<{ audits: AuditSummary[]; hasMore: boolean }> {
      const siteIds = q.inboundSiteId === undefined ? undefined : await shelvesUnder(subId, q.inboundSiteId)
      // One more than asked: whether a next page has any.
      const rows = await audits.listAudits(db, subId, { siteIds, skip: q.skip, limit: q.limit + 1 })
      const page = rows.slice(0, q.limit)
      const infos: Map<string, SiteInfo> = await sites.getInfos(subId, [...new Set(page.map((r) => r.site_id))])
      return {
        audits: page.map((r) => ({
          auditId: r.audit_id,
          inboundSiteId: r.site_id,
          shelfName: infos.get(r.site_id)?.name ?? r.site_id,
          auditedAt: new Date(r.audited_at).toISOString(),
          auditedBy: r.audited_by,
          found: r.found_ids.length,
          missing: r.missing_ids.length,
          misplaced: r.misplaced_ids.length,
          unknown: r.unknown_scans.length,
        })),
        hasMore: rows.length > q.limit,
      }
    },

    /** One audit as it was answered, its parcels as their records read now. */
    async getAudit(subId: string, auditId: string): Promise<Audit> {
      const row = await audits.findAudit(db, subId, auditId)
      if (!row) throw new AppError(SHELF_ERRORS.SHELF_AUDIT_NOT_FOUND, { detail: { auditId } })
      const ids = [...new Set([...row.found_ids, ...row.missing_ids, ...row.misplaced_ids])]
      const [shelf, site, records] = await Promise.all([
        repo.findShelf(db, subId, row.site_id),
        sites.getInfos(subId, [row.site_id]).then((m) => m.get(row.site_id)),
        packages.recordsByIds(subId, ids),
      ])
      const byId = new Map(records.map((r) => [r.packageId, r]))
      // A shelf no longer a shelf keeps its audits: it reads with no code.
      const shelfRow = shelf ?? {
        sub_id: subId,
        site_id: row.site_id,
        code: '',
        kind: 'shelf' as const,
        created_at: row.audited_at,
      }
      return {
        auditId: row.audit_id,
        shelf: toShelf(shelfRow, site),
        auditedAt: new Date(row.audited_at).toISOString(),
        auditedBy: row.audited_by,
        found: row.found_ids.map((id) => auditItem(byId, id)),
        missing: row.missing_ids.map((id) => auditItem(byId, id)),
        misplaced: row.misplaced_ids.map((id) => auditItem(byId, id)),
        unknown: row.unknown_scans,
      }
    },
  }
}
