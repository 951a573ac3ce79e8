import { decodeScan, DecodeError, type DecodeResult } from '../decode/index.js'
import type { PackageRecord } from '../packages/index.js'
import { AppError, registerErrors } from '../platform/kit/errors.js'
import type { SiteRef } from '../sites/index.js'
import type { DecodeContact, DecodeResponse } from './api/schemas.js'

/** What a decode tells of a package the subscription already holds. */
export interface HeldPackage {
  packageId: string
  currentStatus: PackageRecord['currentStatus']
  currentLocation: PackageRecord['currentLocation']
  sender?: DecodeContact
  receiver?: DecodeContact
  givenTo?: DecodeContact
}

export const SCAN_ERRORS = registerErrors({
  SCAN_UNREADABLE: {
    status: 400,
    errorCode: 'validation_error',
    additionalCode: 'DEC-4000',
    message: 'The scanned text cannot be decoded.',
  },
})

/** A contact a ship-to matched, as the contacts domain keeps it (sites by id). */
export type ContactMatch = {
  contactId: string
  name: string
  company?: string | null
  personalId?: string | null
  phone?: string | null
  locationSiteId?: string | null
  mailStopSiteId?: string | null
}

export interface ScanDeps {
  /** The packages held under any of these numbers (archived ones too when `includeArchived`), by number, in one lookup. */
  findPackages(subId: string, trackingNumbers: string[], includeArchived: boolean): Promise<Map<string, HeldPackage>>
  findContacts(subId: string, name: string, company?: string): Promise<ContactMatch[]>
  /** Receivers a company alone can mean: a contact named after it, else the people at it. */
  findCompanyContacts(subId: string, company: string): Promise<ContactMatch[]>
  /** Site references by id, as the sites domain keeps them in memory; unknown ids left out. */
  siteRefs(subId: string, siteIds: string[]): Promise<Map<string, SiteRef>>
}

/** The matched contact in PB's decode shape (PB-REFERENCE §8.2): its sites as full references. */
async function contactShape(deps: ScanDeps, subId: string, c: ContactMatch): Promise<DecodeContact> {
  const siteIds = [c.locationSiteId, c.mailStopSiteId].filter((id): id is string => !!id)
  const sites = siteIds.length > 0 ? await deps.siteRefs(subId, siteIds) : new Map<string, SiteRef>()
  const out: DecodeContact = { contactId: c.contactId, name: c.name }
  if (c.company) out.company = c.company
  if (c.personalId) out.personalId = c.personalId
  if (c.phone) out.phone = c.phone
  const location = c.locationSiteId ? sites.get(c.locationSiteId) : undefined
  const mailStop = c.mailStopSiteId ? sites.get(c.mailStopSiteId) : undefined
  if (location) out.location = location
  if (mailStop) out.mailStopLocation = mailStop
  return out
}

/** Every number the package may be held under: the reported one first, then each candidate's. */
function lookupNumbers(r: DecodeResult): { primary?: string; others: string[] } {
  const others = new Set<string>()
  for (const c of r.candidates) others.add(c.trackingNumber)
  if (r.trackingNumber === null) return { others: [...others] }
  others.delete(r.trackingNumber)
  return { primary: r.trackingNumber, others: [...others] }
}

/**
 * The package the subscription already holds: under the reported number; failing that, under the
 * candidates' numbers only when they lead to one package. Several (two full 1Z numbers that fit one
 * MaxiCode short field, both on file) is a doubt for the clerk, not a match.
 */
async function findExisting(
  deps: ScanDeps,
  subId: string,
  r: DecodeResult,
  includeArchived: boolean,
): Promise<HeldPackage | undefined> {
  const { primary, others } = lookupNumbers(r)
  const numbers = primary === undefined ? others : [primary, ...others]
  if (numbers.length === 0) return undefined
  const held = await deps.findPackages(subId, numbers, includeArchived)
  const hit = primary === undefined ? undefined : held.get(primary)
  if (hit) return hit
  const hits = others.map((n) => held.get(n)).filter((p): p is HeldPackage => p !== undefined)
  return new Set(hits.map((p) => p.packageId)).size === 1 ? hits[0] : undefined
}

/**
 * Contacts the decoded ship-to can be: by the person's name (narrowed by company), or, when the
 * label names only a company, by that company as the contact's name (how a business recipient is
 * kept as a contact).
 */
async function matchReceiver(
  deps: ScanDeps,
  subId: string,
  name: string | undefined,
  company: string | undefined,
): Promise<ContactMatch[]> {
  if (name) return deps.findContacts(subId, name, company)
  if (company) return deps.findCompanyContacts(subId, company)
  return []
}

export type ScanService = ReturnType<typeof createScanService>

export function createScanService(deps: ScanDeps) {
  return {
    async decode(
      subId: string,
      raw: string,
      opts: { expectedPackage?: boolean; editflow?: boolean } = {},
    ): Promise<DecodeResponse> {
      let r: DecodeResult
      try {
        r = decodeScan(raw)
      } catch (e) {
        if (e instanceof DecodeError)
          throw new AppError(SCAN_ERRORS.SCAN_UNREADABLE, { field: 'trackingNumber', description: e.message })
        throw e
      }
      // The decoder states a carrier only from a strong reading (see DecodeResult.carrier).
      const carrier = r.carrier
      const out: DecodeResponse = {
        package: {
          trackingNumber: r.trackingNumber,
          carrier: carrier
            ? { carrierId: carrier.carrierId, name: carrier.name, ...(carrier.scac ? { scac: carrier.scac } : {}) }
            : undefined,
          service: carrier?.service,
          assetType: 'PACKAGE',
          destination: r.destination,
          packageCount: r.packageCount,
          weight: r.weight,
        },
        decodedCarriers: r.candidates.map((c) => ({
          carrierId: c.carrierId,
          name: c.name,
          service: c.service,
          scac: c.scac,
          checkDigitValid: c.checkDigitValid,
          trackingNumber: c.trackingNumber,
          trackingUrl: c.trackingUrl,
        })),
        barcode: { format: r.format, envelope: r.envelope, fields: r.fields },
      }
      if (r.receiver) {
        const { name, company, postalCode, country, ...rest } = r.receiver
        const address = Object.keys(rest).length || postalCode || country ? { ...rest, postalCode, country } : undefined
        out.package.receiver = { name, company, address, postalCode, country }
      }
      // The two lookups are independent: side by side, the clerk waits for the slower one only.
      const [matches, existing] = await Promise.all([
        r.receiver ? matchReceiver(deps, subId, r.receiver.name, r.receiver.company) : [],
        findExisting(deps, subId, r, opts.editflow ?? false),
      ])
      if (existing?.receiver) {
        // The package on file names its receiver: that is who it is for, whatever the label's spelling.
        out.package.receiver = existing.receiver
      } else if (out.package.receiver) {
        if (matches.length === 1)
          out.package.receiver = { ...out.package.receiver, ...(await contactShape(deps, subId, matches[0]!)) }
        else if (matches.length > 1)
          out.package.receiverCandidates = matches.map((m) => ({
            contactId: m.contactId,
            name: m.name,
            company: m.company ?? undefined,
          }))
      }
      if (existing) {
        out.package.packageId = existing.packageId
        out.package.currentStatus = existing.currentStatus
        out.package.currentLocation = existing.currentLocation
        if (existing.sender) out.package.sender = existing.sender
        if (existing.givenTo) out.package.givenTo = existing.givenTo
      }
      if (opts.expectedPackage) out.package.expectedPackageFound = existing !== undefined
      return out
    },
  }
}
