import { isValidLuhn } from '../check-digits.js'
import type { CarrierCode } from '../tables/carriers.js'
import type { CheckName } from './format-doc.js'
import { makeMatch, RANK, type Rule } from './match.js'

/**
 * A carrier's literal prefix + digits with no check character (SP…, YT…, GFUS…, LTN…): each is a
 * prefix only that carrier issues, so the reading is strong without a check.
 */
function prefixed(carrier: CarrierCode, name: string, layout: string, shape: RegExp, lengths: number[]): Rule {
  return {
    lengths,
    carriers: [carrier],
    distinctive: true,
    formats: [{ carrier, name, layout, check: 'none' }],
    match(s, out) {
      if (shape.test(s)) out.push(makeMatch(carrier, s, null, RANK.PREFIX))
    },
  }
}

const speeDee = prefixed('SPEE_DEE', 'Spee-Dee (20)', 'SP + digits (18)', /^SP\d{18}$/, [20])
const yodel = prefixed('YODEL', 'Yodel', 'JD or JJD + digits (16)', /^J?JD\d{16}$/, [18, 19])
const yunExpress = prefixed('YUNEXPRESS', 'YunExpress', 'YT + digits (16)', /^YT\d{16}$/, [18])
const gofo = prefixed('GOFO', 'GOFO Express (US)', 'GFUS + digits (14)', /^GFUS\d{14}$/, [18])
const landmark = prefixed('LANDMARK', 'Landmark Global LTN', 'LTN + digits (8) + N1', /^LTN\d{8}N1$/, [13])

/** Canpar: a letter of C, D, K, L, S, U, X, Z + 21 digits; no check. A shape, not a prefix. */
const canpar: Rule = {
  lengths: [22],
  carriers: ['CANPAR'],
  distinctive: false,
  formats: [
    { carrier: 'CANPAR', name: 'Canpar (22)', layout: 'letter (C, D, K, L, S, U, X, Z) + digits (21)', check: 'none' },
  ],
  match(s, out) {
    if (/^[CDKLSUXZ]\d{21}$/.test(s)) out.push(makeMatch('CANPAR', s, null, RANK.WEAK))
  },
}

/** Old Dominion PRO numbers: 777, 778, 072 or 780 + 7 digits, or 80 + 8 digits; Luhn check. */
const OD_PRO = /^(?:77[78]|072|780)\d{8}$|^80\d{9}$/
const OD_CHECK: CheckName = 'luhn'

const oldDominion: Rule = {
  lengths: [11],
  carriers: ['OLD_DOMINION'],
  distinctive: false,
  formats: [
    {
      carrier: 'OLD_DOMINION',
      name: 'Old Dominion',
      layout: '777, 778, 072 or 780 + serial (7) + check',
      check: OD_CHECK,
    },
    {
      carrier: 'OLD_DOMINION',
      name: 'Old Dominion Guaranteed Shipment',
      layout: '80 + serial (8) + check',
      check: OD_CHECK,
    },
  ],
  match(s, out) {
    if (OD_PRO.test(s)) out.push(makeMatch('OLD_DOMINION', s, isValidLuhn(s), RANK.SHAPE_CHECK))
  },
}

export const COURIER_RULES: readonly Rule[] = [speeDee, yodel, yunExpress, gofo, landmark, canpar, oldDominion]
