import { isValidFedexCheckDigit, isValidGs1CheckDigit } from '../check-digits.js'
import { makeMatch, RANK, serviceOf, type Rule } from './match.js'

const DIGITS = /^\d+$/

/** FedEx Express: 11 digits + mod 11 check (weights 1,3,7 from the right). */
const express12: Rule = {
  lengths: [12],
  carriers: ['FEDEX'],
  distinctive: false,
  match(s, out) {
    if (DIGITS.test(s)) out.push(makeMatch('FEDEX', s, isValidFedexCheckDigit(s), RANK.SHAPE_CHECK))
  },
}

/** FedEx Ground 15-digit number: GS1 mod 10. */
const ground15: Rule = {
  lengths: [15],
  carriers: ['FEDEX'],
  distinctive: false,
  match(s, out) {
    if (DIGITS.test(s)) out.push(makeMatch('FEDEX', s, isValidGs1CheckDigit(s), RANK.SHAPE_CHECK))
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
 * (7-digit shipper id, 7-digit package id, GS1 mod 10 check over those fifteen).
 */
const ground96: Rule = {
  lengths: [22],
  carriers: ['FEDEX'],
  distinctive: true,
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
 * 34-digit FedEx barcodes: "96…" (Ground, with the GSN) and "10x…" (Express, with the destination
 * ZIP in positions 16–20). Both end in the 12-digit tracking number with its mod 11 check.
 */
const long34: Rule = {
  lengths: [34],
  carriers: ['FEDEX'],
  distinctive: true,
  match(s, out) {
    if (!(s.startsWith('96') || s.startsWith('10')) || !DIGITS.test(s)) return
    const tracking = s.slice(22)
    const m = makeMatch('FEDEX', tracking, isValidFedexCheckDigit(tracking), RANK.PREFIX_CHECK)
    if (s.startsWith('96')) m.fields = { fedexScnc: s.slice(2, 4) }
    else m.fields = { fedexBarcodeZip: s.slice(15, 20) }
    out.push(m)
  },
}

/** Legacy ASTRA 32-digit Express barcode: the tracking number sits in positions 17–28. */
const astra32: Rule = {
  lengths: [32],
  carriers: ['FEDEX'],
  distinctive: false,
  match(s, out) {
    if (!DIGITS.test(s)) return
    const tracking = s.slice(16, 28)
    out.push(makeMatch('FEDEX', tracking, isValidFedexCheckDigit(tracking), RANK.WEAK))
  },
}

/** Express airbill barcode: the 12-digit number followed by a four-digit form code. */
const express16: Rule = {
  lengths: [16],
  carriers: ['FEDEX'],
  distinctive: false,
  match(s, out) {
    if (!DIGITS.test(s)) return
    const tracking = s.slice(0, 12)
    out.push(makeMatch('FEDEX', tracking, isValidFedexCheckDigit(tracking), RANK.WEAK))
  },
}

export const FEDEX_RULES: readonly Rule[] = [
  express12,
  ground15,
  twenty,
  ground96,
  long34,
  astra32,
  express16,
]
