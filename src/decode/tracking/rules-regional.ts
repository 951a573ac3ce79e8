import { isValidIso7064Mod37_36, isValidUpsCheckDigit } from '../check-digits.js'
import { isValidMailroomNumber } from '../mailroom-number.js'
import { countryFromNumeric } from '../tables/countries.js'
import { dpdServiceName } from '../tables/services.js'
import { makeMatch, RANK, serviceOf, type Rule } from './match.js'

/** mailroom's own numbers: "MR" + 12 Crockford base-32 + Luhn mod 32 check. */
const mailroom: Rule = {
  lengths: [15],
  carriers: ['MAILROOM'],
  distinctive: true,
  formats: [
    { carrier: 'MAILROOM', name: 'mailroom', layout: 'MR + Crockford base 32 (12) + check', check: 'mailroomLuhn32' },
  ],
  match(s, out) {
    if (s.startsWith('MR')) out.push(makeMatch('MAILROOM', s, isValidMailroomNumber(s), RANK.PREFIX_CHECK))
  },
}

/**
 * Amazon Logistics: "TBA" (US), "TBC" (Canada), "TBM" (Mexico) + 12 digits; and the international
 * form A, F or C + 10 digits, a shape only. Neither has a check digit.
 */
const amazon: Rule = {
  lengths: [11, 15],
  carriers: ['AMAZON'],
  distinctive: true,
  formats: [
    { carrier: 'AMAZON', name: 'Amazon Logistics', layout: 'TBA, TBC or TBM + digits (12)', check: 'none' },
    { carrier: 'AMAZON', name: 'Amazon International', layout: 'A, F or C + digits (10)', check: 'none' },
  ],
  match(s, out) {
    if (/^TB[ACM]\d{12}$/.test(s)) out.push(makeMatch('AMAZON', s, null, RANK.PREFIX))
    else if (/^[AFC]\d{10}$/.test(s)) out.push(makeMatch('AMAZON', s, null, RANK.WEAK))
  },
}

/**
 * OnTrac: "C" or "D" + 13-digit serial + check. The check is the 1Z scheme over the serial with
 * "4" (C) or "5" (D) put before it, unless the serial already starts with that digit.
 */
const ontrac: Rule = {
  lengths: [15],
  carriers: ['ONTRAC'],
  distinctive: true,
  formats: [
    {
      carrier: 'ONTRAC',
      name: 'OnTrac (C/D)',
      layout: 'C or D + serial (13) + check; 4 (C) or 5 (D) put before a serial not starting with it',
      check: 'upsMod10',
    },
  ],
  match(s, out) {
    if (!/^[CD]\d{14}$/.test(s)) return
    const lead = s.charAt(0) === 'C' ? '4' : '5'
    const data = s.charAt(1) === lead ? s.slice(1) : lead + s.slice(1)
    out.push(makeMatch('ONTRAC', s, isValidUpsCheckDigit(data), RANK.PREFIX_CHECK))
  },
}

/**
 * LaserShip "1LS" numbers (LaserShip is now part of OnTrac, which tracks them too): 1LS7 + 1 or 2 +
 * ten digits; 1LS7 + 1 or 2 + two digits + 01 + 1–4 + six digits, printed with a "-1" suffix; and
 * 1LSCX + ten letters and digits. And the older "L" + letter (A, E, H, I, N, X) + 1–3 + seven
 * digits. None has a check character.
 */
const LASERSHIP_1LS = /^1LS7[12](?:\d{10}|\d{2}01[1-4]\d{6}1)$|^1LSCX[0-9A-Z]{10}$/
const LASERSHIP_L = /^L[AEHINX][1-3]\d{7}$/

const lasership: Rule = {
  lengths: [10, 15, 17],
  carriers: ['LASERSHIP', 'ONTRAC'],
  distinctive: true,
  formats: [
    {
      carrier: 'LASERSHIP',
      name: 'LaserShip 1LS7 (15)',
      layout: '1LS7 + 1 or 2 + digits (10)',
      check: 'none',
      alsoRead: ['ONTRAC'],
    },
    {
      carrier: 'LASERSHIP',
      name: 'LaserShip 1LS7 (18)',
      layout: '1LS7 + 1 or 2 + digits (2) + 01 + 1–4 + digits (6) + "-1"',
      check: 'none',
      alsoRead: ['ONTRAC'],
    },
    {
      carrier: 'LASERSHIP',
      name: 'LaserShip 1LSCX (15)',
      layout: '1LSCX + letters and digits (10)',
      check: 'none',
      alsoRead: ['ONTRAC'],
    },
    { carrier: 'LASERSHIP', name: 'LaserShip LX', layout: 'L + A, E, H, I, N or X + 1–3 + digits (7)', check: 'none' },
  ],
  match(s, out) {
    if (LASERSHIP_1LS.test(s)) {
      out.push(makeMatch('LASERSHIP', s, null, RANK.PREFIX))
      out.push(makeMatch('ONTRAC', s, null, RANK.ALTERNATE))
    } else if (LASERSHIP_L.test(s)) {
      out.push(makeMatch('LASERSHIP', s, null, RANK.WEAK))
    }
  },
}

/**
 * DPD parcel label (DPD Parcel Label Specification): the barcode is "%" + destination postcode (7)
 * + parcel number (14) + service code (3) + ISO numeric country (3); the human-readable line adds an
 * ISO 7064 MOD 37,36 check character over those 27 characters instead of the "%". The parcel
 * number alone is printed with its own check character over its fourteen digits.
 */
const DPD_BARCODE = /^%[0-9A-Z]{7}\d{20}$/
const DPD_READABLE = /^[0-9A-Z]{7}\d{20}[0-9A-Z]$/

const dpd: Rule = {
  lengths: [14, 15, 28],
  carriers: ['DPD'],
  distinctive: false,
  formats: [
    {
      carrier: 'DPD',
      name: 'DPD (28)',
      layout: 'postcode (7) + parcel (14) + service (3) + country (3) + check',
      check: 'mod37_36',
    },
    {
      carrier: 'DPD',
      name: 'DPD (14 + check)',
      layout: 'parcel (14) + check',
      check: 'mod37_36',
      alsoRead: ['DHL_ECOMMERCE'],
    },
  ],
  match(s, out) {
    if (s.length === 28) {
      const barcode = DPD_BARCODE.test(s)
      if (!barcode && !DPD_READABLE.test(s)) return
      const data = barcode ? s.slice(1) : s.slice(0, 27)
      const m = makeMatch(
        'DPD',
        data.slice(7, 21),
        barcode ? null : isValidIso7064Mod37_36(s),
        barcode ? RANK.PREFIX : RANK.SHAPE_CHECK,
      )
      const service = data.slice(21, 24)
      m.service = serviceOf(service, dpdServiceName(service))
      m.fields = { dpdPostalCode: data.slice(0, 7), dpdServiceCode: service, dpdCountryCode: data.slice(24, 27) }
      const country = countryFromNumeric(data.slice(24, 27))
      if (country !== undefined) m.destination = { country }
      out.push(m)
    } else if (/^\d{14}[0-9A-Z]$/.test(s)) {
      out.push(makeMatch('DPD', s.slice(0, 14), isValidIso7064Mod37_36(s), RANK.SHAPE_CHECK))
    } else if (/^\d{14}$/.test(s)) {
      // The parcel number without its check character: nothing to verify.
      out.push(makeMatch('DPD', s, null, RANK.WEAK))
    }
  },
}

export const REGIONAL_RULES: readonly Rule[] = [mailroom, amazon, ontrac, lasership, dpd]
