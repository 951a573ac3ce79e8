import { isValidIso7064Mod37_36, isValidMod7, isValidUpsCheckDigit } from '../check-digits.js'
import { isValidMailroomNumber } from '../mailroom-number.js'
import { countryFromNumeric } from '../tables/countries.js'
import { dpdServiceName } from '../tables/services.js'
import { makeMatch, range, RANK, serviceOf, type Rule } from './match.js'

/** mailroom's own numbers: "MR" + 12 Crockford base-32 + Luhn mod 32 check. */
const mailroom: Rule = {
  lengths: [15],
  carriers: ['MAILROOM'],
  distinctive: true,
  match(s, out) {
    if (s.startsWith('MR')) out.push(makeMatch('MAILROOM', s, isValidMailroomNumber(s), RANK.PREFIX_CHECK))
  },
}

/** DHL Express waybill: 10 digits, the last the first nine modulo 7 (an 11-digit form also exists). */
const dhlWaybill: Rule = {
  lengths: [10, 11],
  carriers: ['DHL_EXPRESS'],
  distinctive: false,
  match(s, out) {
    if (!/^\d+$/.test(s)) return
    out.push(makeMatch('DHL_EXPRESS', s, isValidMod7(s), s.length === 10 ? RANK.SHAPE_CHECK : RANK.WEAK))
  },
}

/**
 * DHL piece ids: ISO 15459 licence plates "JD…" (often scanned with the DI "J": "JJD…"), "JVGL…".
 * DHL Paket (Germany) prints the same licence plates, but the carrier catalogue holds no DHL Paket
 * carrier to name, so DHL Express is the one reading; no carrier id is made up for it.
 */
const DHL_PIECE = /^(?:JJD\d{8,20}|JD\d{16,18}|JVGL\d{6,20})$/

const dhlPiece: Rule = {
  lengths: range(10, 24),
  carriers: ['DHL_EXPRESS'],
  distinctive: true,
  match(s, out) {
    if (DHL_PIECE.test(s)) out.push(makeMatch('DHL_EXPRESS', s, true, RANK.PREFIX))
  },
}

/** DHL eCommerce: "GM" + 16–22 digits; the Asian hub prefixes are only a shape. */
const DHL_ECOM_HUBS = /^(?:LX|RX|UV|CN|SG|TH|IN|HK|MY)\d{10,39}$/

const dhlEcommerce: Rule = {
  lengths: range(12, 41),
  carriers: ['DHL_ECOMMERCE'],
  distinctive: true,
  match(s, out) {
    if (/^GM\d{16,22}$/.test(s)) out.push(makeMatch('DHL_ECOMMERCE', s, true, RANK.PREFIX))
    else if (DHL_ECOM_HUBS.test(s)) out.push(makeMatch('DHL_ECOMMERCE', s, false, RANK.WEAK))
  },
}

/** Amazon Logistics: "TBA" (US), "TBC" (Canada), "TBM" (Mexico) + 12 digits; no check digit. */
const amazon: Rule = {
  lengths: [15],
  carriers: ['AMAZON'],
  distinctive: true,
  match(s, out) {
    if (/^TB[ACM]\d{12}$/.test(s)) out.push(makeMatch('AMAZON', s, true, RANK.PREFIX))
  },
}

/** OnTrac: "C" or "D" + 13 digits + check, computed as for UPS with the letter folded to a digit. */
const ontrac: Rule = {
  lengths: [15],
  carriers: ['ONTRAC'],
  distinctive: true,
  match(s, out) {
    if (/^[CD]\d{14}$/.test(s)) out.push(makeMatch('ONTRAC', s, isValidUpsCheckDigit(s), RANK.PREFIX_CHECK))
  },
}

/**
 * LaserShip "1LS…" numbers (LaserShip is now part of OnTrac, which tracks them too) and the older
 * "L" + letter + eight digits.
 */
const lasership: Rule = {
  lengths: range(10, 23),
  carriers: ['LASERSHIP', 'ONTRAC'],
  distinctive: true,
  match(s, out) {
    if (/^1LS[0-9A-Z]{10,20}$/.test(s)) {
      out.push(makeMatch('LASERSHIP', s, true, RANK.PREFIX))
      out.push(makeMatch('ONTRAC', s, true, RANK.ALTERNATE))
    } else if (/^L[A-Z]\d{8}$/.test(s)) {
      out.push(makeMatch('LASERSHIP', s, false, RANK.WEAK))
    }
  },
}

/**
 * DPD parcel label (DPD Parcel Label Specification): the barcode is "%" + destination postcode (7)
 * + parcel number (14) + service code (3) + ISO numeric country (3); the human-readable line adds an
 * ISO 7064 MOD 37,36 check character over those 27 characters instead of the "%".
 */
const DPD_BARCODE = /^%[0-9A-Z]{7}\d{20}$/
const DPD_READABLE = /^[0-9A-Z]{7}\d{20}[0-9A-Z]$/

const dpd: Rule = {
  lengths: [14, 15, 28],
  carriers: ['DPD'],
  distinctive: false,
  match(s, out) {
    if (s.length === 28) {
      const barcode = DPD_BARCODE.test(s)
      if (!barcode && !DPD_READABLE.test(s)) return
      const data = barcode ? s.slice(1) : s.slice(0, 27)
      const m = makeMatch('DPD', data.slice(7, 21), barcode || isValidIso7064Mod37_36(s), barcode ? RANK.PREFIX : RANK.SHAPE_CHECK)
      const service = data.slice(21, 24)
      m.service = serviceOf(service, dpdServiceName(service))
      m.fields = { dpdPostalCode: data.slice(0, 7), dpdServiceCode: service, dpdCountryCode: data.slice(24, 27) }
      const country = countryFromNumeric(data.slice(24, 27))
      if (country !== undefined) m.destination = { country }
      out.push(m)
    } else if (/^\d{14}[0-9A-Z]?$/.test(s)) {
      // The check character covers the whole label line, so a bare parcel number cannot be verified.
      out.push(makeMatch('DPD', s.slice(0, 14), false, RANK.WEAK))
    }
  },
}

export const REGIONAL_RULES: readonly Rule[] = [
  mailroom,
  dhlWaybill,
  dhlPiece,
  dhlEcommerce,
  amazon,
  ontrac,
  lasership,
  dpd,
]
