import type { PackageRecord } from '../../packages/index.js'
import type { SiteInfo } from '../../sites/index.js'
import type { SiteRef } from '../../sites/index.js'
import type { DecodeContact } from '../api/schemas.js'
import type { HeldPackage, ScanDeps } from '../service.js'

/** The package a subscription holds under one number, read through a gathered lookup (see batchPerSubscription). */
export type FindHeldRecord = (
  subId: string,
  trackingNumber: string,
  includeArchived: boolean,
) => Promise<PackageRecord | undefined>

/**
 * `ScanDeps.findPackages` over the packages domain's gathered record read: every number a scan
 * asks about is one key of the read that concurrent scans (and Gets by tracking number) share, so
 * a turn of the event loop costs one query per subscription instead of one per scan. The record
 * also carries the contacts a decode shows (PB's shape), so a held package costs no second query.
 */
export function heldPackagesFrom(find: FindHeldRecord): ScanDeps['findPackages'] {
  return async (subId, trackingNumbers, includeArchived) => {
    const numbers = [...new Set(trackingNumbers)]
    const records = await Promise.all(numbers.map((n) => find(subId, n, includeArchived)))
    const out = new Map<string, HeldPackage>()
    numbers.forEach((n, i) => {
      const r = records[i]
      if (r) out.set(n, toHeld(r))
    })
    return out
  }
}

function toHeld(r: PackageRecord): HeldPackage {
  const held: HeldPackage = {
    packageId: r.packageId,
    currentStatus: r.currentStatus,
    currentLocation: r.currentLocation,
  }
  const sender = decodeContact(r.sender)
  const receiver = decodeContact(r.receiver)
  const givenTo = decodeContact(r.givenTo)
  if (sender) held.sender = sender
  if (receiver) held.receiver = receiver
  if (givenTo) held.givenTo = givenTo
  return held
}

/** PB's decode contact (PB-REFERENCE §8.2): the record's contact without what decode does not show (email). */
function decodeContact(c: PackageRecord['sender']): DecodeContact | undefined {
  if (!c) return undefined
  const out: DecodeContact = { contactId: c.contactId, name: c.name }
  if (c.company) out.company = c.company
  if (c.personalId) out.personalId = c.personalId
  if (c.phone) out.phone = c.phone
  if (c.location) out.location = c.location
  if (c.mailStopLocation) out.mailStopLocation = c.mailStopLocation
  return out
}

/** Site references from the sites domain's in-memory infos (what a reference shows, not the site's own status). */
export async function siteRefsOf(
  sites: { getInfos(subId: string, ids: string[]): Promise<Map<string, SiteInfo>> },
  subId: string,
  siteIds: string[],
): Promise<Map<string, SiteRef>> {
  const infos = await sites.getInfos(subId, siteIds)
  return new Map([...infos].map(([id, { locationId: _l, status: _s, deleted: _d, ...ref }]) => [id, ref]))
}
