import { decodeScan, DecodeError, type DecodeResult } from '../decode/index.js'
import type { PackageRecord } from '../packages/packages.schemas.js'
import { AppError, registerErrors } from '../shared/errors.js'
import type { DecodeResponse } from './scan.schemas.js'

/** What a decode tells of a package the subscription already holds. */
export interface HeldPackage {
  packageId: string
  currentStatus: PackageRecord['currentStatus']
  currentLocation: PackageRecord['currentLocation']
}

export const SCAN_ERRORS = registerErrors({
  SCAN_UNREADABLE: { status: 400, errorCode: 'validation_error', additionalCode: 'DEC-4000', message: 'The scanned text cannot be decoded.' },
})

type ContactMatch = { contactId: string; name: string; company?: string | null }

export interface ScanDeps {
  /** The packages held under any of these numbers (archived ones too when `includeArchived`), by number, in one lookup. */
  findPackages(subId: string, trackingNumbers: string[], includeArchived: boolean): Promise<Map<string, HeldPackage>>
  findContacts(subId: string, name: string, company?: string): Promise<ContactMatch[]>
  /** Receivers a company alone can mean: a contact named after it, else the people at it. */
  findCompanyContacts(subId: string, company: string): Promise<ContactMatch[]>
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
async function findExisting(deps: ScanDeps, subId: string, r: DecodeResult, includeArchived: boolean): Promise<HeldPackage | undefined> {
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
async function matchReceiver(deps: ScanDeps, subId: string, name: string | undefined, company: string | undefined): Promise<ContactMatch[]> {
  if (name) return deps.findContacts(subId, name, company)
  if (company) return deps.findCompanyContacts(subId, company)
  return []
}

export type ScanService = ReturnType<typeof createScanService>

export function createScanService(deps: ScanDeps) {
  return {
    async decode(subId: string, raw: string, opts: { expectedPackage?: boolean; editflow?: boolean } = {}): Promise<DecodeResponse> {
      let r: DecodeResult
      try {
        r = decodeScan(raw)
      } catch (e) {
        if (e instanceof DecodeError) throw new AppError(SCAN_ERRORS.SCAN_UNREADABLE, { field: 'trackingNumber', description: e.message })
        throw e
      }
      // The decoder states a carrier only from a strong reading (see DecodeResult.carrier).
      const carrier = r.carrier
      const out: DecodeResponse = {
        package: {
          trackingNumber: r.trackingNumber,
          carrier: carrier ? { carrierId: carrier.carrierId, name: carrier.name, ...(carrier.scac ? { scac: carrier.scac } : {}) } : undefined,
          service: carrier?.service,
          assetType: 'PACKAGE',
          destination: r.destination,
          packageCount: r.packageCount,
          weight: r.weight,
        },
        decodedCarriers: r.candidates.map((c) => ({ carrierId: c.carrierId, name: c.name, service: c.service, scac: c.scac, checkDigitValid: c.checkDigitValid, trackingNumber: c.trackingNumber, trackingUrl: c.trackingUrl })),
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
      if (out.package.receiver) {
        if (matches.length === 1) out.package.receiver.contactId = matches[0]!.contactId
        else if (matches.length > 1) out.package.receiverCandidates = matches.map((m) => ({ contactId: m.contactId, name: m.name, company: m.company ?? undefined }))
      }
      if (existing) {
        out.package.packageId = existing.packageId
        out.package.currentStatus = existing.currentStatus
        out.package.currentLocation = existing.currentLocation
      }
      if (opts.expectedPackage) out.package.expectedPackageFound = existing !== undefined
      return out
    },
  }
}
