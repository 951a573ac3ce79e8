import { isValidGs1CheckDigit, isValidLuhn, isValidS10 } from '../check-digits.js'
import { s10ServiceName } from '../tables/services.js'
import type { CarrierCode } from '../types.js'
import { makeMatch, RANK, serviceOf, type Rule } from './match.js'

/** Posts whose S10 country code maps to a carrier we know. Others are reported without a carrier. */
const S10_CARRIERS: ReadonlyMap<string, CarrierCode> = new Map<string, CarrierCode>([
  ['US', 'USPS'],
  ['CA', 'CANADA_POST'],
  ['GB', 'ROYAL_MAIL'],
])

/** UPU S10: service indicator (2 letters) + serial (8) + check + ISO country of the issuing post. */
const s10: Rule = {
  lengths: [13],
  carriers: ['USPS', 'CANADA_POST', 'ROYAL_MAIL'],
  distinctive: true,
  match(s, out) {
    const carrier = S10_CARRIERS.get(s.slice(11))
    if (carrier === undefined || !/^[A-Z]{2}\d{9}/.test(s)) return
    const m = makeMatch(carrier, s, isValidS10(s), RANK.PREFIX_CHECK)
    const indicator = s.slice(0, 2)
    m.service = serviceOf(indicator, s10ServiceName(indicator))
    m.fields = { s10ServiceIndicator: indicator, s10Country: s.slice(11) }
    out.push(m)
  },
}

/** Canada Post 16-digit parcel PIN: GS1 mod 10. */
const canadaPost16: Rule = {
  lengths: [16],
  carriers: ['CANADA_POST'],
  distinctive: false,
  match(s, out) {
    if (/^\d{16}$/.test(s)) out.push(makeMatch('CANADA_POST', s, isValidGs1CheckDigit(s), RANK.SHAPE_CHECK))
  },
}

/**
 * Purolator 12-digit PIN (Luhn), and the older three letters + nine digits (no check). Purolator
 * publishes no numbering rule; the published collection of its real and test PINs
 * (tracking_number_data, "Purolator (12)") has the first digit within 0–5, so 6–9 are not read as
 * Purolator at all (they were only ever a 12-digit shape sharing FedEx Express's length).
 */
const PUROLATOR_PIN = /^[0-5]\d{11}$/

const purolator: Rule = {
  lengths: [12],
  carriers: ['PUROLATOR'],
  distinctive: false,
  match(s, out) {
    if (PUROLATOR_PIN.test(s)) out.push(makeMatch('PUROLATOR', s, isValidLuhn(s), RANK.SHAPE_CHECK))
    else if (/^[A-Z]{3}\d{9}$/.test(s)) out.push(makeMatch('PUROLATOR', s, false, RANK.WEAK))
  },
}

export const POSTAL_RULES: readonly Rule[] = [s10, canadaPost16, purolator]
