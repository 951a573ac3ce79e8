import { decodeScan, DecodeError, type DecodeResult } from '../decode/index.js'
import type { PackageRecord } from '../packages/packages.schemas.js'
import { AppError, registerErrors } from '../shared/errors.js'
import type { DecodeResponse } from './scan.schemas.js'

export const SCAN_ERRORS = registerErrors({
  SCAN_UNREADABLE: { status: 400, errorCode: 'validation_error', additionalCode: 'DEC-4000', message: 'The scanned text cannot be decoded.' },
})

export interface ScanDeps {
  findPackage(subId: string, trackingNumber: string, includeArchived: boolean): Promise<PackageRecord | undefined>
  findContacts(subId: string, name: string, company?: string): Promise<Array<{ contactId: string; name: string; company?: string | null }>>
}

/**
 * A carrier is stated only when the data leaves no doubt: the symbol's own SCAC named it, or exactly
 * one candidate passes its check. Otherwise the clerk sees the ranked candidates and chooses.
 */
function confidentCarrier(r: DecodeResult): DecodeResult['candidates'][number] | undefined {
  const top = r.candidates[0]
  if (!top || !top.checkDigitValid) return undefined
  if (top.scac) return top
  return r.candidates.filter((c) => c.checkDigitValid).length === 1 ? top : undefined
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
      const carrier = confidentCarrier(r)
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
        decodedCarriers: r.candidates.map((c) => ({ carrierId: c.carrierId, name: c.name, service: c.service, scac: c.scac, checkDigitValid: c.checkDigitValid, trackingNumber: c.trackingNumber })),
        barcode: { format: r.format, envelope: r.envelope, fields: r.fields },
      }
      if (r.receiver) {
        const { name, company, postalCode, country, ...rest } = r.receiver
        const address = Object.keys(rest).length || postalCode || country ? { ...rest, postalCode, country } : undefined
        out.package.receiver = { name, company, address, postalCode, country }
        if (name) {
          const matches = await deps.findContacts(subId, name, company)
          if (matches.length === 1) out.package.receiver.contactId = matches[0]!.contactId
          else if (matches.length > 1) out.package.receiverCandidates = matches.map((m) => ({ contactId: m.contactId, name: m.name, company: m.company ?? undefined }))
        }
      }
      if (r.trackingNumber) {
        const existing = await deps.findPackage(subId, r.trackingNumber, opts.editflow ?? false)
        if (existing) {
          out.package.packageId = existing.packageId
          out.package.currentStatus = existing.currentStatus
          out.package.currentLocation = existing.currentLocation
        }
        if (opts.expectedPackage) out.package.expectedPackageFound = existing !== undefined
      } else if (opts.expectedPackage) out.package.expectedPackageFound = false
      return out
    },
  }
}
