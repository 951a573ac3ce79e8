import { isValidUpsCheckDigit } from '../check-digits.js'
import { ups1ZServiceName } from '../tables/services.js'
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
  match(s, out) {
    if (!MAIL_INNOVATIONS.test(s)) return
    const m = makeMatch('UPS', s, true, RANK.PREFIX)
    m.service = { name: 'Mail Innovations' }
    out.push(m)
  },
}

// UPS InfoNotice / waybill numbers: "T" + ten digits, no published check.
const WAYBILL = /^T\d{10}$/

const waybill: Rule = {
  lengths: [11],
  carriers: ['UPS'],
  distinctive: false,
  match(s, out) {
    if (WAYBILL.test(s)) out.push(makeMatch('UPS', s, false, RANK.WEAK))
  },
}

export const UPS_RULES: readonly Rule[] = [oneZ, mailInnovations, waybill]

/**
 * UPS MaxiCode carries a short tracking field: "1Z" + the last eight characters of the number. The
 * full number puts the shipper number and the two-digit service (the class of service without its
 * leading zero) between them. Returned only when the rebuilt number passes its check digit.
 */
export function expandMaxiCodeTracking(field: string, shipperNumber: string, serviceClass: string): string | null {
  if (!/^1Z[0-9A-Z]{8}$/.test(field) || !/^[0-9A-Z]{6}$/.test(shipperNumber) || !/^\d{3}$/.test(serviceClass)) {
    return null
  }
  const full = `1Z${shipperNumber}${serviceClass.slice(1)}${field.slice(2)}`
  return isValidUpsCheckDigit(full.slice(2)) ? full : null
}
