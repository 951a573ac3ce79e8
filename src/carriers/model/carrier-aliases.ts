import type { CarrierCode } from '../../decode/index.js'

/**
 * How a carrier id a client sends finds a carrier of the catalogue (CONTRACT §5 drop-in rule).
 * Pitney Bowes clients name carriers the way PB's documentation does (`"carrierId": "FedEx"`), and
 * integrations in general use a carrier's name, its SCAC or a common short name, in any case. Our
 * ids stay canonical: whatever matched, a package records (and every response shows) the id.
 *
 * In order, the first that matches wins:
 * 1. the id itself, exactly (a subscription's own couriers have opaque ids such as `car_…`);
 * 2. the id, the name or the SCAC, ignoring case, spaces and punctuation (`fedex`, `Amazon Logistics`,
 *    `DHL-eCommerce`, `UPSN`, `canada_post`);
 * 3. a common name that differs from our catalogue name, below (`DHL`, `Amazon`, `Federal Express`);
 *    keys are written as `carrierKey` gives them, targets are built-in ids (the decoder's codes).
 * A key that would match two different carriers at step 2 matches none of them there.
 */
export const CARRIER_ALIASES: Readonly<Record<string, CarrierCode>> = {
  dhl: 'DHL_EXPRESS',
  amazon: 'AMAZON',
  amazonshipping: 'AMAZON',
  amzl: 'AMAZON',
  fdx: 'FEDEX',
  federalexpress: 'FEDEX',
  unitedparcelservice: 'UPS',
  unitedstatespostalservice: 'USPS',
  postalservice: 'USPS',
  royalmailgroup: 'ROYAL_MAIL',
}

/** Case, spaces and punctuation do not distinguish carriers. */
export function carrierKey(raw: string): string {
  return raw
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '')
}

export interface CarrierNames {
  carrier_id: string
  name: string
  scac: string | null
}

/** The carrier among `visible` that `raw` names, or undefined. */
export function findCarrier<T extends CarrierNames>(visible: readonly T[], raw: string): T | undefined {
  const exact = visible.find((c) => c.carrier_id === raw)
  if (exact) return exact
  const key = carrierKey(raw)
  if (key === '') return undefined
  const loose = visible.filter(
    (c) =>
      carrierKey(c.carrier_id) === key || carrierKey(c.name) === key || (c.scac !== null && carrierKey(c.scac) === key),
  )
  if (new Set(loose.map((c) => c.carrier_id)).size === 1) return loose[0]
  if (loose.length > 1) return undefined
  const alias = CARRIER_ALIASES[key]
  return alias === undefined ? undefined : visible.find((c) => c.carrier_id === alias)
}
