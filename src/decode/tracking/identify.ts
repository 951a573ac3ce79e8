import type { CarrierCode } from '../types.js'
import { RANK, type Match, type Rule } from './match.js'
import { COURIER_RULES } from './rules-couriers.js'
import { DHL_RULES } from './rules-dhl.js'
import { FEDEX_RULES } from './rules-fedex.js'
import { POSTAL_RULES } from './rules-postal.js'
import { REGIONAL_RULES } from './rules-regional.js'
import { UPS_RULES } from './rules-ups.js'
import { USPS_RULES } from './rules-usps.js'

/** Every rule, in the order readings of equal standing are listed. */
export const ALL_RULES: readonly Rule[] = [
  ...UPS_RULES,
  ...USPS_RULES,
  ...FEDEX_RULES,
  ...POSTAL_RULES,
  ...DHL_RULES,
  ...REGIONAL_RULES,
  ...COURIER_RULES,
]

/** Rules indexed by the lengths they accept: a scan only meets the rules that could fit it. */
const BY_LENGTH: ReadonlyArray<readonly Rule[]> = (() => {
  const table: Rule[][] = []
  for (const rule of ALL_RULES) {
    for (const n of rule.lengths) (table[n] ??= []).push(rule)
  }
  return table
})()

export interface IdentifyOptions {
  /** The symbol names this carrier: read the number only as that carrier's. */
  carrier?: CarrierCode
  /** Only rules with a carrier-specific prefix (for numbers found inside free text). */
  distinctiveOnly?: boolean
}

/** Every reading of `s` (upper case, no separators), unranked. */
export function identifyTrackingNumber(s: string, options?: IdentifyOptions): Match[] {
  const rules = BY_LENGTH[s.length]
  const out: Match[] = []
  if (rules === undefined) return out
  const carrier = options?.carrier
  const distinctiveOnly = options?.distinctiveOnly === true
  for (const rule of rules) {
    if (carrier !== undefined && !rule.carriers.includes(carrier)) continue
    if (distinctiveOnly && !rule.distinctive) continue
    rule.match(s, out)
  }
  if (carrier === undefined) return out
  return out.filter((m) => m.carrierId === carrier)
}

/**
 * Readings of a number that the symbol attributes to `carrier`: that carrier's own rules, promoted to
 * NAMED; when none fits, the number is still that carrier's, with nothing to vouch for its check.
 */
export function identifyNamed(s: string, carrier: CarrierCode, scac: string | undefined): Match[] {
  const matches = identifyTrackingNumber(s, { carrier })
  if (matches.length === 0)
    matches.push({ carrierId: carrier, trackingNumber: s, checkDigitValid: false, rank: RANK.NAMED })
  for (const m of matches) {
    m.rank = RANK.NAMED
    if (scac !== undefined) m.scac = scac
  }
  return matches
}

/**
 * Upper case, whitespace, hyphens and dots removed (the separators a printed or typed number puts
 * between its groups): how a number is compared and reported.
 */
export function compactNumber(text: string): string {
  return text.replace(/[\s\-.\u0000-\u001f\u007f]+/g, '').toUpperCase()
}
