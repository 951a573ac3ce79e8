import { isValidFedexCheckDigit, isValidGs1CheckDigit } from '../check-digits.js'
import { makeMatch, RANK, serviceOf, type Rule } from './match.js'
import { splitRoutedPic } from './rules-usps.js'

const DIGITS = /^\d+$/

/** FedEx Express: 11 digits + mod 11 check (weights 1,3,7 from the right). */
const express12: Rule = {
  lengths: [12],
  carriers: ['FEDEX'],
  distinctive: false,
  formats: [{ carrier: 'FEDEX', name: 'FedEx Express (12)', layout: 'serial (11) + check', check: 'fedexMod11' }],
  match(s, out) {
    if (DIGITS.test(s)) out.push(makeMatch('FEDEX', s, isValidFedexCheckDigit(s), RANK.SHAPE_CHECK))
  },
}

/** FedEx Ground 15-digit number: GS1 mod 10. */
const ground15: Rule = {
  lengths: [15],
  carriers: ['FEDEX'],
  distinctive: false,
  formats: [{ carrier: 'FEDEX', name: 'FedEx Ground (15)', layout: 'serial (14) + check', check: 'gs1Mod10' }],
  match(s, out) {
    if (DIGITS.test(s)) out.push(makeMatch('FEDEX', s, isValidGs1CheckDigit(s), RANK.SHAPE_CHECK))
  },
}

/**
 * An SSCC-18 as FedEx Ground reads it: container type (2) + serial (15) + check, the check over the
 * fifteen serial digits only. An SSCC is the shipper's number and names no carrier: a second reading.
 */
const sscc18: Rule = {
  lengths: [18],
  carriers: ['FEDEX'],
  distinctive: false,
  formats: [
    {
      carrier: 'FEDEX',
      name: 'FedEx Ground (SSCC-18)',
      layout: 'container type (2) + serial (15) + check',
      check: 'gs1Mod10',
    },
  ],
  match(s, out) {
    if (!DIGITS.test(s)) return
    const m = makeMatch('FEDEX', s, isValidGs1CheckDigit(s.slice(2)), RANK.ALTERNATE)
    m.fields = { sscc: s }
    out.push(m)
  },
}

/**
 * Twenty digits: "00" + SSCC-18, or a SmartPost number printed without its IMpb channel identifier
 * "92", whose check still covers it. Both are second readings only: an SSCC is the shipper's
 * logistic-unit number and names no carrier (FedEx Ground merely accepts it as a tracking number),
 * and a 20-digit shape passes a mod 10 check one time in ten.
 */
const twenty: Rule = {
  lengths: [20],
  carriers: ['FEDEX'],
  distinctive: false,
  formats: [
    { carrier: 'FEDEX', name: 'FedEx Ground (00 + SSCC-18)', layout: '00 + SSCC (17) + check', check: 'gs1Mod10' },
    {
      carrier: 'FEDEX',
      name: 'FedEx SmartPost (20)',
      layout: 'IMpb without its channel id 92 (19) + check',
      check: 'gs1Mod10',
    },
  ],
  match(s, out) {
    if (!DIGITS.test(s)) return
    if (s.startsWith('00')) {
      const m = makeMatch('FEDEX', s, isValidGs1CheckDigit(s.slice(2)), RANK.ALTERNATE)
      m.fields = { sscc: s.slice(2) }
      out.push(m)
    }
    if (isValidGs1CheckDigit(`92${s}`)) out.push(makeMatch('FEDEX', s, true, RANK.ALTERNATE))
  },
}

/**
 * FedEx Ground "96" Code 128: 96 + SCNC (2) + service type (3) + the 15-digit tracking number
 * (7-digit shipper id, 7-digit package id, GS1 mod 10 check over those fourteen).
 */
const ground96: Rule = {
  lengths: [22],
  carriers: ['FEDEX'],
  distinctive: true,
  formats: [
    {
      carrier: 'FEDEX',
      name: 'FedEx Ground 96 (22)',
      layout: '96 + SCNC (2) + service (3) + shipper (7) + package (7) + check',
      check: 'gs1Mod10',
    },
  ],
  match(s, out) {
    if (!s.startsWith('96') || !DIGITS.test(s)) return
    const tracking = s.slice(7)
    const m = makeMatch('FEDEX', tracking, isValidGs1CheckDigit(tracking), RANK.PREFIX_CHECK)
    m.service = serviceOf(s.slice(4, 7), undefined)
    m.fields = { fedexScnc: s.slice(2, 4), fedexServiceType: s.slice(4, 7) }
    out.push(m)
  },
}

/**
 * 34-digit FedEx barcodes: "96…" (Ground, with the ground shipper number) and Express, whose first
 * digit is 0–8 ("10x…" for most labels) with the destination ZIP in positions 16–20. Both end in a
 * 13-digit serial + mod 11 check; the tracking number is the last twelve digits.
 */
const long34: Rule = {
  lengths: [34],
  carriers: ['FEDEX'],
  distinctive: true,
  formats: [
    {
      carrier: 'FEDEX',
      name: 'FedEx Express (34)',
      layout: 'digit 0–8 + data (14) + ZIP (5) + serial (13) + check',
      check: 'fedexMod11',
    },
    {
      carrier: 'FEDEX',
      name: 'FedEx Ground GSN (34)',
      layout: '96 + SCNC (2) + data (5) + GSN (10) + digit + serial (13) + check',
      check: 'fedexMod11',
    },
  ],
  match(s, out) {
    if (!DIGITS.test(s) || (s.charAt(0) === '9' && !s.startsWith('96'))) return
    // "420" + ZIP+4 + a sound IMpb is the USPS routing barcode; its digits are no FedEx barcode.
    if (s.startsWith('420') && splitRoutedPic(s.slice(3)).some((p) => p.checkDigitValid)) return
    const valid = isValidFedexCheckDigit(s.slice(20))
    const known = s.startsWith('96') || s.startsWith('10')
    const m = makeMatch('FEDEX', s.slice(22), valid, known ? RANK.PREFIX_CHECK : RANK.SHAPE_CHECK)
    if (s.startsWith('96')) m.fields = { fedexScnc: s.slice(2, 4), fedexGsn: s.slice(9, 19) }
    else m.fields = { fedexBarcodeZip: s.slice(15, 20) }
    out.push(m)
  },
}

/** Legacy ASTRA 32-digit Express barcode: "3…", the tracking number in positions 17–28. */
const astra32: Rule = {
  lengths: [32],
  carriers: ['FEDEX'],
  distinctive: false,
  formats: [
    {
      carrier: 'FEDEX',
      name: 'FedEx ASTRA (32)',
      layout: '3 + data (15) + serial (11) + check + data (4)',
      check: 'fedexMod11',
    },
  ],
  match(s, out) {
    if (s.charAt(0) !== '3' || !DIGITS.test(s)) return
    const tracking = s.slice(16, 28)
    out.push(makeMatch('FEDEX', tracking, isValidFedexCheckDigit(tracking), RANK.SHAPE_CHECK))
  },
}

/** Express airbill barcode: the 12-digit number followed by a four-digit form code. */
const express16: Rule = {
  lengths: [16],
  carriers: ['FEDEX'],
  distinctive: false,
  formats: [
    {
      carrier: 'FEDEX',
      name: 'FedEx Express airbill (16)',
      layout: 'tracking number (12) + form code (4)',
      check: 'fedexMod11',
    },
  ],
  match(s, out) {
    if (!DIGITS.test(s)) return
    const tracking = s.slice(0, 12)
    out.push(makeMatch('FEDEX', tracking, isValidFedexCheckDigit(tracking), RANK.WEAK))
  },
}

export const FEDEX_RULES: readonly Rule[] = [express12, ground15, sscc18, twenty, ground96, long34, astra32, express16]
