import { isValidGs1CheckDigit, isValidLuhn, isValidS10 } from '../check-digits.js'
import type { CarrierCode } from '../tables/carriers.js'
import { S10_POSTS } from '../tables/s10-posts.js'
import { s10ServiceName } from '../tables/services.js'
import { makeMatch, RANK, serviceOf, type Match, type Rule } from './match.js'

/** Posting operators that are carriers of the catalogue, by S10 country code. */
const POST_CARRIERS: ReadonlyMap<string, CarrierCode> = new Map<string, CarrierCode>([
  ['US', 'USPS'],
  ['CA', 'CANADA_POST'],
  ['GB', 'ROYAL_MAIL'],
])

/**
 * The national posts of the catalogue, which deliver S10 items from every other post in their
 * country: an item from a post the catalogue does not hold is a candidate for each of them.
 */
const LOCAL_POSTS: readonly CarrierCode[] = [...POST_CARRIERS.values()]

const S10_SHAPE = /^[A-Z]{2}\d{9}[A-Z]{2}$/

function s10Match(
  carrier: CarrierCode,
  s: string,
  valid: boolean,
  rank: number,
  service: Match['service'],
  fields: Record<string, string>,
): Match {
  const m = makeMatch(carrier, s, valid, rank)
  m.service = service
  m.fields = fields
  return m
}

/**
 * UPU S10: service indicator (2 letters) + serial (8) + check + ISO country of the posting operator.
 * A country code no post issues under is no S10 item. The posting operator is named in the fields;
 * when it is a catalogue carrier it is the reading, otherwise the local posts that deliver the item.
 */
const s10: Rule = {
  lengths: [13],
  carriers: LOCAL_POSTS,
  distinctive: true,
  formats: [
    {
      carrier: 'USPS',
      name: 'UPU S10 (every post)',
      layout: 'service indicator (2 letters) + serial (8) + check + country (2 letters)',
      check: 's10',
      alsoRead: ['CANADA_POST', 'ROYAL_MAIL'],
    },
  ],
  match(s, out) {
    if (!S10_SHAPE.test(s)) return
    const country = s.slice(11)
    const operator = S10_POSTS.get(country)
    if (operator === undefined) return
    const valid = isValidS10(s)
    const indicator = s.slice(0, 2)
    const service = serviceOf(indicator, s10ServiceName(indicator))
    const fields = { s10ServiceIndicator: indicator, s10Country: country, s10PostingOperator: operator }
    const own = POST_CARRIERS.get(country)
    if (own !== undefined) out.push(s10Match(own, s, valid, RANK.PREFIX_CHECK, service, fields))
    else for (const carrier of LOCAL_POSTS) out.push(s10Match(carrier, s, valid, RANK.ALTERNATE, service, fields))
  },
}

/** Canada Post 16-digit parcel PIN: GS1 mod 10. */
const canadaPost16: Rule = {
  lengths: [16],
  carriers: ['CANADA_POST'],
  distinctive: false,
  formats: [
    { carrier: 'CANADA_POST', name: 'Canada Post (16)', layout: 'origin (7) + serial (8) + check', check: 'gs1Mod10' },
  ],
  match(s, out) {
    if (/^\d{16}$/.test(s)) out.push(makeMatch('CANADA_POST', s, isValidGs1CheckDigit(s), RANK.SHAPE_CHECK))
  },
}

/**
 * Purolator 12-digit PIN (Luhn), and the alphanumeric PIN: three letters + nine digits (no check).
 * Purolator publishes no numbering rule; the published collection of its real and test PINs
 * (tracking_number_data, "Purolator (12)") has the first digit within 0–5, so 6–9 are not read as
 * Purolator at all (they were only ever a 12-digit shape sharing FedEx Express's length).
 */
const PUROLATOR_PIN = /^[0-5]\d{11}$/

const purolator: Rule = {
  lengths: [12],
  carriers: ['PUROLATOR'],
  distinctive: false,
  formats: [
    { carrier: 'PUROLATOR', name: 'Purolator (12)', layout: 'digit 0–5 + serial (10) + check', check: 'luhn' },
    { carrier: 'PUROLATOR', name: 'Purolator (alpha + 9)', layout: 'letters (3) + digits (9)', check: 'none' },
  ],
  match(s, out) {
    if (PUROLATOR_PIN.test(s)) out.push(makeMatch('PUROLATOR', s, isValidLuhn(s), RANK.SHAPE_CHECK))
    else if (/^[A-Z]{3}\d{9}$/.test(s)) out.push(makeMatch('PUROLATOR', s, null, RANK.WEAK))
  },
}

export const POSTAL_RULES: readonly Rule[] = [s10, canadaPost16, purolator]
