import { setField, type Draft } from '../draft.js'
import { carrierOfScac } from '../tables/carriers.js'
import { countryFromNumeric, formatPostalCode } from '../tables/countries.js'
import { upsServiceClassName } from '../tables/services.js'
import { compactNumber, identifyNamed, identifyTrackingNumber } from '../tracking/identify.js'
import { rebuildMaxiCodeTracking } from '../tracking/rules-ups.js'
import type { CarrierCode } from '../types.js'

/**
 * Format 01 (transportation) data elements in the order UPS (MaxiCode, "Guide to Bar Coding") and
 * FedEx (PDF417) use them after the two-digit header. In MaxiCode the first three are the primary
 * message (postal code, ISO 3166 numeric country, class of service).
 */
const POSITIONS = [
  'shipToPostalCode',
  'countryCode',
  'serviceClass',
  'trackingNumber',
  'scac',
  'shipperId',
  'julianPickupDay',
  'shipmentId',
  'packageCount',
  'weight',
  'addressValidation',
  'shipToAddress',
  'shipToCity',
  'shipToState',
] as const

type Position = (typeof POSITIONS)[number]
export type TransportFields = Partial<Record<Position, string>>

/**
 * Splits the header from the first element. MaxiCode and FedEx write "96"/"02" directly before the
 * postal code; some encoders put a GS after it instead. A first element of exactly 5 or 9 digits is
 * a ZIP with no header.
 */
export function splitHeader(elements: readonly string[]): { header?: string; data: string[] } {
  const first = elements[0] ?? ''
  if (/^\d{2}$/.test(first)) return { header: first, data: elements.slice(1) }
  if (/^\d{2}/.test(first) && !/^(?:\d{5}|\d{9})$/.test(first)) {
    return { header: first.slice(0, 2), data: [first.slice(2), ...elements.slice(1)] }
  }
  return { data: elements.slice() }
}

/**
 * Names the positional elements; elements past the fourteenth are returned as extras. When the
 * primary message is missing (a MaxiCode secondary message read on its own starts with the tracking
 * number) `primary` (postal code, country, class read elsewhere) fills the first three positions.
 */
export function nameTransportFields(
  data: readonly string[],
  primary?: readonly string[],
): { named: TransportFields; extras: string[] } {
  // Secondary message only: the SCAC (four letters) sits right after the tracking number.
  const secondaryOnly = !/^\d{3}$/.test(data[1] ?? '') && /^[A-Z]{4}$/.test(data[1] ?? '')
  const values = !secondaryOnly ? data : [...(primary ?? []).concat(['', '', '']).slice(0, 3), ...data]
  const named: TransportFields = {}
  POSITIONS.forEach((name, i) => {
    const v = (values[i] ?? '').trim()
    if (v !== '') named[name] = v
  })
  return { named, extras: values.slice(POSITIONS.length).map((v) => v.trim()) }
}

/** Applies format 01 to the draft: fields, carrier reading, destination, receiver, count, weight. */
export function applyTransportData(
  draft: Draft,
  data: readonly string[],
  primary?: readonly string[],
): CarrierCode | undefined {
  const { named: f, extras } = nameTransportFields(data, primary)
  for (const [k, v] of Object.entries(f)) setField(draft, k, v)
  extras.forEach((v, i) => setField(draft, `field${POSITIONS.length + i + 1}`, v))

  const country = f.countryCode !== undefined ? countryFromNumeric(f.countryCode) : undefined
  const postal = f.shipToPostalCode !== undefined ? formatPostalCode(f.shipToPostalCode, country) : undefined
  const dest = draft.destination
  dest.postalCode ??= postal
  dest.country ??= country
  dest.city ??= f.shipToCity
  dest.state ??= f.shipToState
  const r = draft.receiver
  r.line1 ??= f.shipToAddress
  r.city ??= f.shipToCity
  r.state ??= f.shipToState
  if (r.line1 !== undefined || r.city !== undefined) {
    r.postalCode ??= postal
    r.country ??= country
  }
  const count = /^(\d{1,4})\/(\d{1,4})$/.exec(f.packageCount ?? '')
  if (count !== null) draft.packageCount = { n: Number(count[1]), of: Number(count[2]) }
  if (f.weight !== undefined) draft.weight ??= f.weight

  return applyTracking(draft, f)
}

function applyTracking(draft: Draft, f: TransportFields): CarrierCode | undefined {
  if (f.trackingNumber === undefined) return undefined
  const scac = f.scac?.toUpperCase()
  const carrier = scac !== undefined ? carrierOfScac(scac) : undefined
  const field = compactNumber(f.trackingNumber)
  let numbers = [field]
  if (carrier === 'UPS' || (carrier === undefined && field.startsWith('1Z'))) {
    const rebuilt = rebuildMaxiCodeTracking(field, f.shipperId ?? '')
    if (rebuilt.length > 0) numbers = rebuilt
    // Several full numbers fit: report what the symbol holds, not one of them picked at random.
    if (rebuilt.length > 1) draft.keyNumber ??= field
  }
  draft.trackingNumber ??= numbers.length === 1 ? (numbers[0] ?? field) : field
  if (carrier === undefined) {
    for (const n of numbers) draft.matches.push(...identifyTrackingNumber(n))
    return undefined
  }
  const name = carrier === 'UPS' && f.serviceClass !== undefined ? upsServiceClassName(f.serviceClass) : undefined
  for (const n of numbers) {
    const matches = identifyNamed(n, carrier, scac)
    if (f.serviceClass !== undefined) {
      for (const m of matches)
        m.service = name === undefined ? { code: f.serviceClass } : { code: f.serviceClass, name }
    }
    draft.matches.push(...matches)
  }
  return carrier
}
