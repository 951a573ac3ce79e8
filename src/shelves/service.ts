import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, invalid, lookupError, ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { isUniqueViolation } from '../platform/db/errors.js'
import type { Actor, PackageRecord, PackageStatus } from '../packages/index.js'
import { FINISHED, isOneOf, withinScope } from '../packages/index.js'
import type { SiteInfo } from '../sites/index.js'
import * as repo from './store/shelves.js'
import { recordAudit } from './audit-record.js'
import type { ShelfRow } from './store/tables.js'
import { SHELF_ERRORS } from './model/errors.js'
import { asShelfCode, classifyAudit, newShelfCode, STORAGE_SITE_TYPES, type ShelfKind } from './model/shelf.js'
import { labelsPdf, labelsZpl, type LabelFormat, type LabelSize } from './model/label.js'
import type { Audit, FileResult, Shelf } from './api/schemas.js'
import { auditItem, locationOf, toShelf } from './view.js'

/** What shelves need from the site tree. */
export interface ShelfSites {
  getInfos(subId: string, siteIds: string[]): Promise<Map<string, SiteInfo>>
}

/** What shelves need from the packages domain: find a scanned parcel, move it, list what waits at a site. */
export interface ShelfPackages {
  findByTrackingNumber(subId: string, trackingNumber: string): Promise<PackageRecord | undefined>
  recordsByIds(subId: string, packageIds: string[]): Promise<PackageRecord[]>
  updatePackage(actor: Actor, packageId: string, body: MoveBody, ifMatch?: number): Promise<unknown>
  waitingAtSite(subId: string, siteId: string, limit: number): Promise<string[]>
}
interface MoveBody {
  package: Record<string, never>
  lastActivity: {
    status: PackageStatus
    location: { inboundSiteId: string; packageLocation: string }
    comment?: string
  }
}

export interface ShelvesServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  sites: ShelfSites
  packages: ShelfPackages
  onEventsCommitted?: () => void
}

/** The most packages an audit compares; a shelf with more is audited by parts (a cage, say). */
const AUDIT_LIMIT = 2_000
const LIST_LIMIT = 1_000

export type ShelvesService = ReturnType<typeof createShelvesService>

/** Why a scan's move was refused, when the packages domain refused it (a 4xx); undefined otherwise. */
function refusalOf(e: unknown): Array<{ field: string; description: string; code: string }> | undefined {
  if (e instanceof ValidationErrors)
    return e.items.map((i) => ({
      field: i.field,
      description: i.description,
      code: lookupError(i.code ?? 'VALIDATION_FAILED').additionalCode,
    }))
  if (e instanceof AppError && e.status < 500)
    return [{ field: e.options.field ?? '', description: e.message, code: lookupError(e.code).additionalCode }]
  return undefined
}

/** The place a label prints under the shelf's name: its ancestors' names. */
const placeOf = (site: SiteInfo | undefined) =>
  site ? site.locationHierarchy.split('| ').slice(0, -1).join(' › ') : ''

export function createShelvesService(deps: ShelvesServiceDeps) {
  const { db, clock, ids, sites, packages } = deps

  async function siteOf(subId: string, siteId: string): Promise<SiteInfo | undefined> {
    const site = (await sites.getInfos(subId, [siteId])).get(siteId)
    return site && !site.deleted ? site : undefined
  }

  async function mustFind(subId: string, siteId: string): Promise<{ row: ShelfRow; site: SiteInfo }> {
    const [row, site] = await Promise.all([repo.findShelf(db, subId, siteId), siteOf(subId, siteId)])
    if (!row || !site) throw new AppError(SHELF_ERRORS.SHELF_NOT_FOUND, { detail: { siteId } })
    return { row, site }
  }

  /**
   * The shelf, refused to a clerk limited to a site (Actor.siteScope) when it is outside it: as the
   * packages domain refuses a move there, before any scan is looked at.
   */
  async function mustReach(actor: Actor, siteId: string): Promise<{ row: ShelfRow; site: SiteInfo }> {
    const found = await mustFind(actor.subId, siteId)
    if (actor.siteScope !== undefined && !withinScope(actor.siteScope, found.site))
      throw invalid('inboundSiteId', `Shelf ${siteId} is outside the sites this user works at.`)
    return found
  }

  /** A scanned parcel: its tracking number, or its package id (a record's own barcode). */
  async function resolveScan(subId: string, scan: string): Promise<PackageRecord | undefined> {
    const text = scan.trim()
    if (text === '') return undefined
    const byNumber = await packages.findByTrackingNumber(subId, text)
    if (byNumber) return byNumber
    return text.startsWith('pkg_') ? (await packages.recordsByIds(subId, [text]))[0] : undefined
  }

  return {
    /**
     * Makes a storage site of the tree a shelf with a label code, or changes the kind of the one it
     * is: the code of a shelf never changes once made, so a printed label stays good.
     */
    async saveShelf(subId: string, siteId: string, kind: ShelfKind): Promise<{ shelf: Shelf; created: boolean }> {
      const site = await siteOf(subId, siteId)
      if (!site) throw new AppError(SHELF_ERRORS.SHELF_NOT_FOUND, { detail: { siteId } })
      if (!(STORAGE_SITE_TYPES as readonly string[]).includes(site.type))
        throw new AppError(SHELF_ERRORS.SHELF_SITE_NOT_STORAGE, { field: 'inboundSiteId' })
      const before = await repo.findShelf(db, subId, siteId)
      // A fresh code collides with one of the subscription's once in a billion: try another.
      for (let attempt = 1; ; attempt++) {
        try {
          const row = await repo.upsertShelf(db, {
            sub_id: subId,
            site_id: siteId,
            code: before?.code ?? newShelfCode(),
            kind,
            created_at: clock.now(),
          })
          return { shelf: toShelf(row, site), created: !before }
        } catch (e) {
          if (!isUniqueViolation(e, 'shelves_code_uq') || attempt === 5) throw e
        }
      }
    },

    async getShelf(subId: string, siteId: string): Promise<Shelf> {
      const { row, site } = await mustFind(subId, siteId)
      return toShelf(row, site)
    },

    /** The shelf a label code names (a scan at the desk). */
    async shelfByCode(subId: string, code: string): Promise<Shelf> {
      const c = asShelfCode(code)
      const row = c ? await repo.findShelfByCode(db, subId, c) : undefined
      const site = row ? await siteOf(subId, row.site_id) : undefined
      if (!row || !site) throw new AppError(SHELF_ERRORS.SHELF_NOT_FOUND, { detail: { code } })
      return toShelf(row, site)
    },

    /** The subscription's shelves whose site is still in the tree, by code. */
    async listShelves(subId: string): Promise<Shelf[]> {
      const rows = await repo.listShelves(db, subId, { limit: LIST_LIMIT })
      const infos = await sites.getInfos(
        subId,
        rows.map((r) => r.site_id),
      )
      return rows.flatMap((r) => {
        const site = infos.get(r.site_id)
        return site && !site.deleted ? [toShelf(r, site)] : []
      })
    },

    async deleteShelf(subId: string, siteId: string): Promise<void> {
      if (!(await repo.deleteShelf(db, subId, siteId)))
        throw new AppError(SHELF_ERRORS.SHELF_NOT_FOUND, { detail: { siteId } })
    },

    /** Labels of these shelves (every shelf when none named), one page or ZPL format each. */
    async labels(
      subId: string,
      siteIds: string[] | undefined,
      format: LabelFormat,
      size: LabelSize,
    ): Promise<Buffer | string> {
      const rows = await repo.listShelves(db, subId, { siteIds, limit: LIST_LIMIT })
      const infos = await sites.getInfos(
        subId,
        rows.map((r) => r.site_id),
      )
      const live = rows.filter((r) => infos.get(r.site_id) && !infos.get(r.site_id)!.deleted)
      const missing = (siteIds ?? []).findIndex((id) => !live.some((r) => r.site_id === id))
      if (missing >= 0) throw invalid(`inboundSiteId[${missing}]`, `No shelf at site ${siteIds![missing]}.`)
      if (live.length === 0) throw invalid('inboundSiteId', 'There is no shelf to print a label for.')
      const labels = live.map((r) => {
        const site = infos.get(r.site_id)
        return { code: r.code, name: site?.name ?? r.code, place: placeOf(site) }
      })
      return format === 'pdf' ? labelsPdf(labels, size) : labelsZpl(labels, size)
    },

    /**
     * Files scanned parcels on a shelf: each one's site becomes the shelf, its free-text shelf the
     * shelf's name, with a history entry (the packages domain's move). Each scan is answered on its
     * own; one not found, handed over already or refused (outside the clerk's sites, changed since
     * it was read) does not stop the others, and is answered with why.
     */
    async fileParcels(actor: Actor, siteId: string, scans: string[]): Promise<FileResult[]> {
      const { site } = await mustReach(actor, siteId)
      const out: FileResult[] = []
      for (const scan of scans) {
        const rec = await resolveScan(actor.subId, scan)
        if (!rec) {
          out.push({ scan, outcome: 'not_found' })
          continue
        }
        const base = { scan, packageId: rec.packageId, trackingNumber: rec.trackingNumber }
        const was = locationOf(rec)
        if (rec.archived || isOneOf(FINISHED, rec.currentStatus)) {
          out.push({ ...base, outcome: 'finished', status: rec.currentStatus })
          continue
        }
        if (was?.inboundSiteId === siteId && rec.packageLocation === site.name) {
          out.push({ ...base, outcome: 'already_there', status: rec.currentStatus })
          continue
        }
        // A parcel out for delivery that comes back onto a shelf is RECEIVED again; others keep theirs.
        const status: PackageStatus =
          rec.currentStatus === 'OUT_FOR_DELIVERY' ? 'RECEIVED' : (rec.currentStatus as PackageStatus)
        // Guarded by the version read: a parcel handed over since is refused, not set back to waiting.
        const move = { status, location: { inboundSiteId: siteId, packageLocation: site.name } }
        try {
          await packages.updatePackage(actor, rec.packageId, { package: {}, lastActivity: move }, rec.version)
        } catch (e) {
          const errors = refusalOf(e)
          if (!errors) throw e
          out.push({ ...base, outcome: 'refused', status: rec.currentStatus, errors })
          continue
        }
        out.push({ ...base, outcome: 'filed', status, from: was?.locationHierarchy ?? null })
      }
      return out
    },

    /**
     * An audit of a shelf: what waits there by the records against what was scanned there. Stored
     * (shelf_audits): audits.ts reads them back.
     */
    async auditShelf(actor: Actor, siteId: string, scans: string[]): Promise<Audit> {
      const { row, site } = await mustReach(actor, siteId)
      const expected = await packages.waitingAtSite(actor.subId, siteId, AUDIT_LIMIT)
      const scanned: string[] = []
      const unknown: string[] = []
      for (const scan of scans) {
        const rec = await resolveScan(actor.subId, scan)
        if (rec) scanned.push(rec.packageId)
        else if (scan.trim()) unknown.push(scan.trim())
      }
      const outcome = classifyAudit(expected, scanned)
      const records = new Map(
        (await packages.recordsByIds(actor.subId, [...new Set([...expected, ...scanned])])).map((r) => [
          r.packageId,
          r,
        ]),
      )
      const auditId = ids('aud_')
      const at = clock.now()
      await recordAudit(
        deps,
        {
          audit_id: auditId,
          sub_id: actor.subId,
          site_id: siteId,
          audited_by: actor.clerk,
          audited_at: at,
          found_ids: JSON.stringify(outcome.found),
          missing_ids: JSON.stringify(outcome.missing),
          misplaced_ids: JSON.stringify(outcome.misplaced),
          unknown_scans: JSON.stringify(unknown),
        },
        outcome.missing,
        records,
      )
      const item = (id: string) => auditItem(records, id)
      return {
        auditId,
        shelf: toShelf(row, site),
        auditedAt: at.toISOString(),
        auditedBy: actor.clerk,
        found: outcome.found.map(item),
        missing: outcome.missing.map(item),
        misplaced: outcome.misplaced.map(item),
        unknown,
      }
    },
  }
}
