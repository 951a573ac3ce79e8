import { isValidMod7 } from '../check-digits.js'
import { makeMatch, range, RANK, type Rule } from './match.js'

/** DHL Express waybill: 9 or 10 digits + check, the check being that number modulo 7. */
const dhlWaybill: Rule = {
  lengths: [10, 11],
  carriers: ['DHL_EXPRESS'],
  distinctive: false,
  formats: [
    { carrier: 'DHL_EXPRESS', name: 'DHL Express waybill (10/11)', layout: 'serial (9 or 10) + check', check: 'mod7' },
  ],
  match(s, out) {
    if (!/^\d+$/.test(s)) return
    out.push(makeMatch('DHL_EXPRESS', s, isValidMod7(s), s.length === 10 ? RANK.SHAPE_CHECK : RANK.WEAK))
  },
}

/**
 * DHL piece ids: ISO 15459 licence plates "JD…" (often scanned with the DI "J": "JJD…"), "JVGL…";
 * DHL Paket (Germany) prints the same licence plates, but the catalogue holds no DHL Paket to name.
 * Other "J" + two or three letters + 9–10 digits are piece ids too, but not a prefix to state.
 */
const DHL_PIECE = /^(?:JJD\d{8,20}|JD\d{16,18}|JVGL\d{6,20})$/
const DHL_PIECE_OTHER = /^J[A-Z]{2,3}\d{9,10}$/

const dhlPiece: Rule = {
  lengths: range(10, 24),
  carriers: ['DHL_EXPRESS'],
  distinctive: true,
  formats: [
    {
      carrier: 'DHL_EXPRESS',
      name: 'DHL Express piece id',
      layout: 'J + 2–3 letters (JJD, JVGL…) + digits',
      check: 'none',
      alsoRead: ['YODEL'],
    },
  ],
  match(s, out) {
    if (DHL_PIECE.test(s)) out.push(makeMatch('DHL_EXPRESS', s, null, RANK.PREFIX))
    else if (DHL_PIECE_OTHER.test(s)) out.push(makeMatch('DHL_EXPRESS', s, null, RANK.WEAK))
  },
}

/**
 * DHL eCommerce: "GM" + 10–39 letters and digits starting with a digit; the Asian hub prefixes
 * (LX, RX, UV, CN, SG, TH, IN, HK, MY) in the same shape are only a shape (S10 items share them).
 * And 14 digits, which DPD parcel numbers share.
 */
const DHL_ECOM_GM = /^GM\d[0-9A-Z]{9,38}$/
const DHL_ECOM_HUBS = /^(?:LX|RX|UV|CN|SG|TH|IN|HK|MY)\d[0-9A-Z]{9,38}$/

const dhlEcommerce: Rule = {
  lengths: range(12, 41),
  carriers: ['DHL_ECOMMERCE'],
  distinctive: true,
  formats: [
    { carrier: 'DHL_ECOMMERCE', name: 'DHL eCommerce (GM)', layout: 'GM + 10–39 letters and digits', check: 'none' },
    {
      carrier: 'DHL_ECOMMERCE',
      name: 'DHL eCommerce (hub prefixes)',
      layout: 'LX, RX, UV, CN, SG, TH, IN, HK or MY + 10–39 letters and digits',
      check: 'none',
    },
  ],
  match(s, out) {
    if (DHL_ECOM_GM.test(s)) out.push(makeMatch('DHL_ECOMMERCE', s, null, RANK.PREFIX))
    else if (DHL_ECOM_HUBS.test(s)) out.push(makeMatch('DHL_ECOMMERCE', s, null, RANK.WEAK))
  },
}

const dhlEcommerce14: Rule = {
  lengths: [14],
  carriers: ['DHL_ECOMMERCE'],
  distinctive: false,
  formats: [
    { carrier: 'DHL_ECOMMERCE', name: 'DHL eCommerce (14)', layout: 'digits (14)', check: 'none', alsoRead: ['DPD'] },
  ],
  match(s, out) {
    if (/^\d{14}$/.test(s)) out.push(makeMatch('DHL_ECOMMERCE', s, null, RANK.WEAK))
  },
}

export const DHL_RULES: readonly Rule[] = [dhlWaybill, dhlPiece, dhlEcommerce, dhlEcommerce14]
