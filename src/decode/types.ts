/** Public shapes of the decode module. The HTTP layer serialises these; keep them JSON-friendly. */

export type { CarrierCode } from './tables/carriers.js'
import type { CarrierCode } from './tables/carriers.js'

export interface CarrierCandidate {
  carrierId: CarrierCode
  name: string
  /** Only when the symbol itself carries one (ISO 15434 format 01 SCAC field). */
  scac?: string
  service?: { code?: string; name?: string }
  /**
   * Whether the number passes the integrity check its format defines; null when the format defines
   * none (TBA…, 1LS…, JJD…, three letters and nine digits…): nothing vouches for it either way.
   */
  checkDigitValid: boolean | null
  trackingNumber: string
  /** The carrier's public tracking page for this number; absent for mailroom's own numbers. */
  trackingUrl?: string
}

/** The carrier the data states beyond doubt (see `DecodeResult.carrier`). */
export interface StatedCarrier {
  carrierId: CarrierCode
  name: string
  scac?: string
  /** Only when every strong reading of the carrier agrees on it. */
  service?: { code?: string; name?: string }
}

export interface DecodedAddress {
  name?: string
  company?: string
  line1?: string
  line2?: string
  city?: string
  state?: string
  postalCode?: string
  /** ISO 3166-1 alpha-2. */
  country?: string
}

export interface DecodeResult {
  /** Best tracking number found, normalised: upper case, no spaces. */
  trackingNumber: string | null
  format: 'PLAIN' | 'ISO15434' | 'GS1'
  envelope?: { formats: string[]; header?: string }
  /** Raw named fields, strings only; binary segments are given as base64. */
  fields: Record<string, string>
  /** Ranked best first; empty when nothing matches. */
  candidates: CarrierCandidate[]
  /**
   * Set only when the reading is strong: the symbol names the carrier (SCAC, the carrier's own
   * URL), or a carrier-specific prefix with a valid check (1Z, IMpb, S10, MR…) or a prefix only that
   * carrier issues (TBA, JJD, 1LS…), and no other carrier reads the number as well. A shape alone
   * (10, 12, 15, 16, 20 digits…) stays a candidate, whatever its check digit says.
   */
  carrier?: StatedCarrier
  receiver?: DecodedAddress
  destination?: { postalCode?: string; country?: string; city?: string; state?: string }
  packageCount?: { n: number; of: number }
  weight?: string
}
