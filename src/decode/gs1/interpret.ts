import { isValidGs1CheckDigit } from '../check-digits.js'
import { setField, type Draft } from '../draft.js'
import { countryFromNumeric, formatPostalCode, isAlpha2Country } from '../tables/countries.js'
import { makeMatch, RANK } from '../tracking/match.js'
import { isPic, matchPic } from '../tracking/rules-usps.js'
import type { Element } from './element-string.js'
import { decodePercentEncoding, PERCENT_ENCODED_AIS } from './percent.js'

/**
 * Ship-to address AIs (GS1 General Specifications §3.2, AIs 4300–4309) → receiver fields. 4304
 * (suburb) has no receiver field and stays a raw field.
 */
const SHIP_TO: Readonly<Record<string, 'company' | 'name' | 'line1' | 'line2' | 'city' | 'state' | 'country'>> = {
  '4300': 'company',
  '4301': 'name',
  '4302': 'line1',
  '4303': 'line2',
  '4305': 'city',
  '4306': 'state',
  '4307': 'country',
}

/**
 * Applies GS1 element strings to the draft: fields "ai<AI>" (percent-encoded AIs decoded), tracking
 * readings (IMpb package code, SSCC), destination (420, 421, 4305–4307) and receiver (4300–4307).
 * Weight from 330n/340n (gross) or 310n/320n (net), with the decimal position the AI's last digit
 * gives.
 */
export function applyGs1Elements(draft: Draft, elements: readonly Element[]): void {
  let routedZip: string | undefined
  let sawPic = false
  let weight: { rank: number; text: string } | undefined
  for (const [ai, raw] of elements) {
    const value = PERCENT_ENCODED_AIS.has(ai) ? decodePercentEncoding(raw) : raw
    setField(draft, `ai${ai}`, value)
    if (ai === '420') {
      routedZip = value
      draft.destination.postalCode ??= value
    } else if (ai === '421') {
      const country = countryFromNumeric(value.slice(0, 3))
      if (country !== undefined) draft.destination.country ??= country
      draft.destination.postalCode ??= value.slice(3)
    } else if (ai === '00' && /^\d{18}$/.test(value)) {
      // An SSCC (18 digits: anything else under AI 00 is kept as its field, not read as a number)
      // identifies the logistic unit, issued by the shipper under its own GS1 company
      // prefix: it names no carrier. FedEx Ground also tracks by it ("00" + SSCC), so FedEx is
      // offered as a second reading that is never stated as the carrier; the SSCC itself is the
      // parcel's number unless a carrier's own number sits beside it.
      const m = makeMatch('FEDEX', `00${value}`, isValidGs1CheckDigit(value), RANK.ALTERNATE)
      m.fields = { sscc: value }
      draft.matches.push(m)
      draft.trackingNumber ??= value
      draft.keyNumber ??= value
    } else if (ai.length === 2 && ai.startsWith('9') && isPic(ai + value)) {
      matchPic(ai + value, draft.matches)
      sawPic = true
    } else if (ai === '401' || ai === '402') {
      // A consignment / shipment id names no carrier; it is still the parcel's number, upper case as
      // every tracking number is (401 allows lower-case letters).
      draft.trackingNumber ??= value.toUpperCase()
    } else if (ai in SHIP_TO) {
      const key = SHIP_TO[ai]
      if (key === 'country') {
        if (isAlpha2Country(value)) {
          draft.receiver.country ??= value
          draft.destination.country ??= value
        }
      } else if (key !== undefined) {
        draft.receiver[key] ??= value
        if (key === 'city' || key === 'state') draft.destination[key] ??= value
      }
    } else if (ai.length === 4 && /^3[1-4]0\d$/.test(ai)) {
      const w = readWeight(ai, value)
      if (weight === undefined || w.rank < weight.rank) weight = w
    }
  }
  if (weight !== undefined) draft.weight ??= weight.text
  if (sawPic && routedZip !== undefined) {
    // "420" on an IMpb label is the USPS destination ZIP.
    draft.destination.country ??= 'US'
    keepUspsOnly(draft)
  }
  const dest = draft.destination
  if (dest.postalCode !== undefined) dest.postalCode = formatPostalCode(dest.postalCode, dest.country)
  const r = draft.receiver
  if (r.name !== undefined || r.company !== undefined || r.line1 !== undefined) {
    r.postalCode ??= dest.postalCode
    r.country ??= dest.country
  }
}

/**
 * "420" + ZIP and the PIC in one GS1-128 symbol is the IMpb barcode itself (USPS Publication 199
 * §3.3): the routing element is USPS's, whoever sold the label (FedEx SmartPost, DHL eCommerce and
 * UPS Ground Saver print this same USPS barcode and hand the parcel to USPS). So the PIC's
 * consolidator readings go and USPS stands alone; a PIC whose check fails is still not stated.
 */
function keepUspsOnly(draft: Draft): void {
  const pics = new Set(draft.matches.filter((m) => m.carrierId === 'USPS').map((m) => m.trackingNumber))
  draft.matches = draft.matches.filter((m) => m.carrierId === 'USPS' || !pics.has(m.trackingNumber))
}

/** Gross logistic weight (330n kg, 340n lb) before net (310n kg, 320n lb); n = decimal places. */
const WEIGHT_ORDER = ['330', '340', '310', '320']

function readWeight(ai: string, value: string): { rank: number; text: string } {
  const family = ai.slice(0, 3)
  const n = Number(value) / 10 ** Number(ai.charAt(3))
  const unit = family === '310' || family === '330' ? 'KG' : 'LB'
  return { rank: WEIGHT_ORDER.indexOf(family), text: `${n} ${unit}` }
}
