import type { PackageRecord } from '../packages/index.js'
import type { SiteInfo, SiteRef } from '../sites/index.js'
import type { ShelfRow } from './store/tables.js'
import type { AuditItem, Shelf } from './api/schemas.js'

// How a shelf and an audited parcel read in the API, shared by the shelves and the audits services.

export function toShelf(row: ShelfRow, site: SiteInfo | undefined): Shelf {
  return {
    inboundSiteId: row.site_id,
    code: row.code,
    kind: row.kind,
    name: site?.name ?? row.site_id,
    locationHierarchy: site?.locationHierarchy ?? '',
    active: site !== undefined && !site.deleted,
  }
}

/** The record's site (its schema types it by reference). */
export const locationOf = (rec: PackageRecord) => rec.currentLocation as SiteRef | undefined

/** An audited parcel as its record reads now (a package deleted since keeps its id only). */
export function auditItem(records: ReadonlyMap<string, PackageRecord>, id: string): AuditItem {
  const r = records.get(id)
  return {
    packageId: id,
    trackingNumber: r?.trackingNumber ?? '',
    recipient: r?.receiver?.name ?? null,
    recordedAt: (r && locationOf(r)?.locationHierarchy) ?? null,
  }
}
