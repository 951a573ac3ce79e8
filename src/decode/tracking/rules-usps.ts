import { isValidGs1CheckDigit } from '../check-digits.js'
import type { CarrierCode } from '../types.js'
import { makeMatch, RANK, serviceOf, type Match, type Rule } from './match.js'

/**
 * USPS Intelligent Mail package barcode (Publication 199). The package identification code (PIC) is
 * a channel application identifier 91–95, a 3-digit service type code, the mailer id (6 digits, or 9
 * when it starts with 9), a serial number and a GS1 mod 10 check over everything before it.
 * 22 or 26 digits (30 for channel 94 with a 9-digit mailer id and a 15-digit serial); on the label
 * it may follow the routing element "420" + ZIP5 or ZIP+4.
 */
const PIC = /^9[1-5](?:\d{20}|\d{24})$|^94\d{3}9\d{24}$/

export function isPic(s: string): boolean {
  return PIC.test(s)
}

/** Named parts of a PIC, for the result fields. The retail (95) and legacy (91) layouts differ. */
export function impbFields(pic: string): Record<string, string> {
  const channel = pic.slice(0, 2)
  const fields: Record<string, string> = { impbChannel: channel }
  if (channel === '92' || channel === '93' || channel === '94') {
    const midLength = pic.charAt(5) === '9' ? 9 : 6
    fields.serviceTypeCode = pic.slice(2, 5)
    fields.mailerId = pic.slice(5, 5 + midLength)
    fields.serialNumber = pic.slice(5 + midLength, -1)
  }
  return fields
}

/**
 * Consolidators that hand parcels to USPS for the last mile under their own IMpb (channels 92 and
 * 93): FedEx SmartPost / Ground Economy, DHL eCommerce, and, less often met, UPS SurePost / Ground
 * Saver, whose labels carry a 92 or 93 PIC as well.
 */
const HANDOVER: Readonly<Record<string, ReadonlyArray<readonly [CarrierCode, number]>>> = {
  '92': [
    ['FEDEX', RANK.ALTERNATE],
    ['DHL_ECOMMERCE', RANK.ALTERNATE],
    ['UPS', RANK.ALTERNATE_RARE],
  ],
  '93': [
    ['DHL_ECOMMERCE', RANK.ALTERNATE],
    ['UPS', RANK.ALTERNATE_RARE],
  ],
}

/**
 * Readings of a PIC: USPS first, then the consolidators that use the same channel, unless the PIC
 * came `routed` ("420" + ZIP before it: the IMpb barcode itself, USPS's whoever sold the label).
 */
export function matchPic(pic: string, out: Match[], routed = false): void {
  const valid = isValidGs1CheckDigit(pic)
  const usps = makeMatch('USPS', pic, valid, RANK.PREFIX_CHECK)
  usps.fields = impbFields(pic)
  const stc = usps.fields.serviceTypeCode
  if (stc !== undefined) usps.service = serviceOf(stc, undefined)
  out.push(usps)
  if (routed) return
  for (const [carrier, rank] of HANDOVER[pic.slice(0, 2)] ?? []) out.push(makeMatch(carrier, pic, valid, rank))
}

const HANDOVER_DOCS = ['FEDEX', 'DHL_ECOMMERCE', 'UPS'] as const

const impb: Rule = {
  lengths: [22, 26, 30],
  carriers: ['USPS', 'FEDEX', 'DHL_ECOMMERCE', 'UPS'],
  distinctive: true,
  formats: [
    {
      carrier: 'USPS',
      name: 'USPS IMpb (channel 94, 22/26/30)',
      layout: '94 + service type (3) + mailer id (6 or 9) + serial + check',
      check: 'gs1Mod10',
    },
    {
      carrier: 'USPS',
      name: 'USPS IMpb (channels 92, 93)',
      layout: '92 or 93 + service type (3) + mailer id (9 or 6) + serial + check',
      check: 'gs1Mod10',
      alsoRead: HANDOVER_DOCS,
    },
    {
      carrier: 'USPS',
      name: 'USPS IMpb retail (channel 95)',
      layout: '95 + service type (3) + mailer id (6 or 9) + serial + check',
      check: 'gs1Mod10',
    },
    {
      carrier: 'USPS',
      name: 'USPS IMpb (channel 91)',
      layout: '91 + service (2) + customer (9) + package (8) + check',
      check: 'gs1Mod10',
    },
  ],
  match(s, out) {
    if (PIC.test(s)) matchPic(s, out)
  },
}

export interface RoutedPic {
  zip: string
  pic: string
  checkDigitValid: boolean
}

// ZIP length, PIC length: the orders in which a dropped FNC1 after "420" + ZIP is most likely.
const SPLITS: ReadonlyArray<readonly [number, number]> = [
  [9, 22],
  [5, 22],
  [5, 26],
  [9, 26],
]

/**
 * Where the ZIP ends and the PIC starts in the digits after "420" when no FNC1 separates them.
 * Every split that fits the IMpb structure, check-valid ones first; empty when none fits.
 */
export function splitRoutedPic(afterAi: string): RoutedPic[] {
  const out: RoutedPic[] = []
  for (const [zipLength, picLength] of SPLITS) {
    if (afterAi.length !== zipLength + picLength) continue
    const pic = afterAi.slice(zipLength)
    if (!PIC.test(pic) || !/^\d+$/.test(afterAi.slice(0, zipLength))) continue
    out.push({ zip: afterAi.slice(0, zipLength), pic, checkDigitValid: isValidGs1CheckDigit(pic) })
  }
  return out.sort((a, b) => Number(b.checkDigitValid) - Number(a.checkDigitValid))
}

/**
 * The whole GS1-128 string "420" + ZIP + PIC, read as one number (FNC1 dropped, or the routing
 * prefix printed before the number): the PIC decodes as it would alone. A legacy 20-digit number
 * may follow the ZIP as well.
 */
const routed: Rule = {
  lengths: [28, 30, 32, 34, 38],
  carriers: ['USPS'],
  distinctive: true,
  formats: [
    {
      carrier: 'USPS',
      name: 'USPS 420 + ZIP routing prefix',
      layout: '420 + ZIP (5 or 9) + IMpb or legacy number',
      check: 'gs1Mod10',
    },
  ],
  match(s, out) {
    if (!s.startsWith('420') || !/^\d+$/.test(s)) return
    const start = out.length
    const split = splitRoutedPic(s.slice(3))[0]
    let zip: string
    if (split !== undefined) {
      zip = split.zip
      matchPic(split.pic, out, true)
    } else if (s.length === 28 || s.length === 32) {
      zip = s.slice(3, s.length - 20)
      matchLegacy20(s.slice(-20), out)
    } else {
      return
    }
    for (let i = start; i < out.length; i++) {
      const m = out[i]
      if (m !== undefined) m.destination = { postalCode: zip, country: 'US' }
    }
  },
}

const DELIVERY_CONFIRMATION = 'Delivery Confirmation'
const SIGNATURE_CONFIRMATION = 'Signature Confirmation'
const MERCHANDISE_RETURN = 'Merchandise Return'

/**
 * Legacy 20-digit numbers: service (2) + customer id (9) + package id (8) + check. The service codes
 * of the Delivery and Signature Confirmation era (as tracking_number_data lists them) and the
 * extra-service codes printed on certified, insured and registered mail.
 */
const LEGACY_SERVICES: ReadonlyMap<string, string> = new Map([
  ...['01', '02', '03', '04', '05', '06', '07', '08', '14'].map((c) => [c, DELIVERY_CONFIRMATION] as const),
  ...['21', '22', '23', '24', '25', '26', '34'].map((c) => [c, SIGNATURE_CONFIRMATION] as const),
  ['50', 'Electronic File Header'],
  ['56', 'Passive Enroute Scan'],
  ['71', 'Certified Mail'],
  ['73', 'Insured Mail'],
  ['77', 'Registered Mail'],
  ['81', 'Return Receipt for Merchandise'],
  ...['82', '83', '85'].map((c) => [c, MERCHANDISE_RETURN] as const),
])

/**
 * Twenty digits: either checked on its own, or an IMpb whose channel identifier "91" is implied and
 * still counted by the check (certified mail numbers "7196 9010 …" are printed that way). Two
 * chances at a mod 10 pass about one random number in five: a shape, never enough to state USPS.
 */
function matchLegacy20(s: string, out: Match[]): void {
  const valid = isValidGs1CheckDigit(s) || isValidGs1CheckDigit(`91${s}`)
  const m = makeMatch('USPS', s, valid, RANK.SHAPE_CHECK)
  const code = s.slice(0, 2)
  const name = LEGACY_SERVICES.get(code)
  if (name !== undefined) m.service = serviceOf(code, name)
  out.push(m)
}

const legacy20: Rule = {
  lengths: [20],
  carriers: ['USPS'],
  distinctive: false,
  formats: [
    { carrier: 'USPS', name: 'USPS 20', layout: 'service (2) + customer (9) + package (8) + check', check: 'gs1Mod10' },
    {
      carrier: 'USPS',
      name: 'USPS legacy (91 implied)',
      layout: 'service (2) + customer (9) + package (8) + check, 91 counted by the check',
      check: 'gs1Mod10',
    },
  ],
  match(s, out) {
    if (/^\d{20}$/.test(s)) matchLegacy20(s, out)
  },
}

export const USPS_RULES: readonly Rule[] = [impb, routed, legacy20]
