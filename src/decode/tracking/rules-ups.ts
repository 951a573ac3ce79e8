import { isValidUpsCheckDigit } from '../check-digits.js'
import { ups1ZServiceName, upsWaybillServiceName, UPS_1Z_SERVICE_CODES } from '../tables/services.js'
import { makeMatch, RANK, range, serviceOf, type Match, type Rule } from './match.js'

const ONE_Z = /^1Z[0-9A-Z]{16}$/

/** "1Z" + shipper number (6) + service (2) + package (7) + check; the check covers all but "1Z". */
export function matchUps1Z(s: string): Match | null {
  if (!ONE_Z.test(s)) return null
  const m = makeMatch('UPS', s, isValidUpsCheckDigit(s.slice(2)), RANK.PREFIX_CHECK)
  const code = s.slice(8, 10)
  m.service = serviceOf(code, ups1ZServiceName(code))
  m.fields = { upsShipperNumber: s.slice(2, 8), upsServiceCode: code }
  return m
}

const oneZ: Rule = {
  lengths: [18],
  carriers: ['UPS'],
  distinctive: true,
  formats: [
    {
      carrier: 'UPS',
      name: 'UPS 1Z',
      layout: '1Z + shipper (6) + service (2) + package (7) + check',
      check: 'upsMod10',
    },
  ],
  match(s, out) {
    const m = matchUps1Z(s)
    if (m !== null) out.push(m)
  },
}

// UPS Mail Innovations: "MI" + six-digit mailer id + the mailer's package id (up to 22).
const MAIL_INNOVATIONS = /^MI\d{6}[0-9A-Z]{1,22}$/

const mailInnovations: Rule = {
  lengths: range(9, 30),
  carriers: ['UPS'],
  distinctive: true,
  formats: [
    { carrier: 'UPS', name: 'UPS Mail Innovations', layout: 'MI + mailer id (6) + package id (1–22)', check: 'none' },
  ],
  match(s, out) {
    if (!MAIL_INNOVATIONS.test(s)) return
    const m = makeMatch('UPS', s, null, RANK.PREFIX)
    m.service = { name: 'Mail Innovations' }
    out.push(m)
  },
}

/**
 * UPS waybill / InfoNotice numbers: a service letter (A, H, J, K, T, V) + nine digits + a check
 * computed as for 1Z over the nine digits only. A letter and ten digits is no prefix worth stating.
 */
const WAYBILL = /^[AHJKTV]\d{10}$/

const waybill: Rule = {
  lengths: [11],
  carriers: ['UPS'],
  distinctive: false,
  formats: [
    {
      carrier: 'UPS',
      name: 'UPS Waybill',
      layout: 'service letter (A, H, J, K, T, V) + serial (9) + check',
      check: 'upsMod10',
    },
  ],
  match(s, out) {
    if (!WAYBILL.test(s)) return
    const m = makeMatch('UPS', s, isValidUpsCheckDigit(s.slice(1)), RANK.SHAPE_CHECK)
    const letter = s.charAt(0)
    m.service = serviceOf(letter, upsWaybillServiceName(letter))
    out.push(m)
  },
}

export const UPS_RULES: readonly Rule[] = [oneZ, mailInnovations, waybill]

/**
 * UPS MaxiCode carries a short tracking field: "1Z" + the last eight characters of the number
 * (package id and check); the shipper number travels in its own field. The two service characters
 * in between are not in the symbol: the class of service is another code list (UPS service codes,
 * "001" Next Day Air), not the 1Z service code. So every code of the 1Z table is tried, and every
 * full number whose check holds is returned, in table order; empty when none does. One answer is
 * the number; several are candidates, none of them certain.
 */
export function rebuildMaxiCodeTracking(field: string, shipperNumber: string): string[] {
  if (!/^1Z[0-9A-Z]{8}$/.test(field) || !/^[0-9A-Z]{6}$/.test(shipperNumber)) return []
  const out: string[] = []
  for (const code of UPS_1Z_SERVICE_CODES) {
    const data = `${shipperNumber}${code}${field.slice(2)}`
    if (isValidUpsCheckDigit(data)) out.push(`1Z${data}`)
  }
  return out
}
