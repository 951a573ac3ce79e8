import type { CarrierCode } from '../types.js'

/** Names as the built-in carrier catalogue (migration 0003) spells them, so both agree. */
export const CARRIER_NAMES: Readonly<Record<CarrierCode, string>> = {
  UPS: 'UPS',
  FEDEX: 'FedEx',
  USPS: 'USPS',
  DHL_EXPRESS: 'DHL Express',
  DHL_ECOMMERCE: 'DHL eCommerce',
  AMAZON: 'Amazon Logistics',
  ONTRAC: 'OnTrac',
  LASERSHIP: 'LaserShip',
  CANADA_POST: 'Canada Post',
  PUROLATOR: 'Purolator',
  ROYAL_MAIL: 'Royal Mail',
  DPD: 'DPD',
  MAILROOM: 'Mailroom (internal)',
}

/**
 * Standard Carrier Alpha Codes (NMFTA) that carriers put in the SCAC element of ISO 15434 format 01.
 * Only codes we are sure of: an unknown SCAC names no carrier, and the tracking field is then
 * matched on its own.
 */
const SCAC_CARRIERS: ReadonlyMap<string, CarrierCode> = new Map<string, CarrierCode>([
  ['UPSN', 'UPS'],
  ['FDEG', 'FEDEX'],
  ['FDEN', 'FEDEX'],
  ['FDEB', 'FEDEX'],
  ['FDXE', 'FEDEX'],
  ['FDXG', 'FEDEX'],
  ['FXFE', 'FEDEX'],
  ['USPS', 'USPS'],
  ['EMSY', 'ONTRAC'],
  ['AMZL', 'AMAZON'],
])

export function carrierOfScac(scac: string): CarrierCode | undefined {
  return SCAC_CARRIERS.get(scac.toUpperCase())
}
