import { CARRIER_NAMES, trackingUrlOf } from '../tables/carriers.js'
import type { CarrierCandidate, CarrierCode } from '../types.js'
import type { FormatDoc } from './format-doc.js'

/**
 * How much a match says about the carrier, used to rank candidates after the check-digit verdict.
 * The symbol naming its carrier beats a carrier-specific prefix, which beats a bare shape.
 */
export const RANK = {
  /** The symbol names the carrier (SCAC in ISO 15434, a carrier's own URL). */
  NAMED: 50,
  /** Carrier-specific prefix and a check digit (1Z…, MR…, IMpb 92…, S10 …US). */
  PREFIX_CHECK: 40,
  /** Carrier-specific literal prefix, no check defined (TBA…, 1LS…, JJD…, SP…, YT…). */
  PREFIX: 30,
  /** Carrier-specific length and check digit, no prefix (FedEx 12, DHL 10, Canada Post 16). */
  SHAPE_CHECK: 20,
  /** A documented second reading of the same number (FedEx SmartPost on an IMpb, OnTrac on 1LS). */
  ALTERNATE: 15,
  /** A second reading less often met than the other alternates (UPS Ground Saver on an IMpb). */
  ALTERNATE_RARE: 12,
  /** A shape only: no prefix, no check, or a rarely used legacy form. */
  WEAK: 10,
} as const

/** One reading of a scanned number: which carrier, which tracking number, how sure. */
export interface Match {
  carrierId: CarrierCode
  trackingNumber: string
  /** null: the format defines no check (see CarrierCandidate.checkDigitValid). */
  checkDigitValid: boolean | null
  rank: number
  service?: { code?: string; name?: string }
  scac?: string
  /** Named parts of the number (service type code, mailer id…), merged into the result fields. */
  fields?: Record<string, string>
  destination?: { postalCode?: string; country?: string }
}

export function makeMatch(
  carrierId: CarrierCode,
  trackingNumber: string,
  checkDigitValid: boolean | null,
  rank: number,
): Match {
  return { carrierId, trackingNumber, checkDigitValid, rank }
}

export function serviceOf(code: string, name: string | undefined): { code: string; name?: string } {
  return name === undefined ? { code } : { code, name }
}

/** A passed check outranks a format without one, which outranks a failed check. */
function verdict(m: Match): number {
  return m.checkDigitValid === true ? 2 : m.checkDigitValid === null ? 1 : 0
}

/** Best first: check verdict, then how specific the reading is; stable otherwise. */
export function compareMatches(a: Match, b: Match): number {
  return verdict(b) - verdict(a) || b.rank - a.rank
}

/** Sorted, one entry per carrier and tracking number (the best reading of each). */
export function rankMatches(matches: Match[]): Match[] {
  const sorted = matches.slice().sort(compareMatches)
  if (sorted.length < 2) return sorted
  // A handful of readings: a pairwise look beats building keys for a Set.
  const out: Match[] = []
  for (const m of sorted) {
    if (!out.some((o) => o.carrierId === m.carrierId && o.trackingNumber === m.trackingNumber)) out.push(m)
  }
  return out
}

/**
 * A reading strong enough to state its carrier: the symbol names the carrier (SCAC, the carrier's
 * own URL), or a carrier-specific prefix with its check (1Z, IMpb 9x, S10, MR…) or a literal prefix
 * that only that carrier issues (TBA, JJD, 1LS; no check defined). A bare shape is never strong,
 * whatever its check says: a random 10-digit number passes DHL's mod 7 one time in seven, a
 * 12-digit one FedEx's mod 11 about one time in ten.
 */
export function isStrong(m: Match): boolean {
  return m.rank >= RANK.NAMED || (m.checkDigitValid !== false && m.rank >= RANK.PREFIX)
}

/**
 * Another reading of the very same number that leaves the carrier in doubt: a passed check, or a
 * documented second reading without a check (OnTrac on a 1LS number). A bare shape without a check
 * (DHL eCommerce's two-letter hub prefixes, which S10 items share) raises no doubt.
 */
function readsAlike(m: Match, top: Match): boolean {
  if (m.trackingNumber !== top.trackingNumber) return false
  return m.checkDigitValid === true || (m.checkDigitValid === null && m.rank >= RANK.ALTERNATE)
}

/**
 * The reading whose carrier may be stated, from ranked readings: the best one when it is strong and
 * no other carrier also reads that number with a valid check (an IMpb is USPS, FedEx SmartPost, UPS
 * Ground Saver or DHL eCommerce alike) nor has a strong reading of its own (two carriers' numbers in
 * one QR text). Otherwise none, and the clerk chooses among the candidates.
 */
export function confidentMatch(ranked: readonly Match[]): Match | undefined {
  const top = ranked[0]
  if (top === undefined || !isStrong(top)) return undefined
  for (const m of ranked) {
    if (m.carrierId === top.carrierId) continue
    if (isStrong(m) || readsAlike(m, top)) return undefined
  }
  return top
}

export function toCandidate(m: Match): CarrierCandidate {
  const c: CarrierCandidate = {
    carrierId: m.carrierId,
    name: CARRIER_NAMES[m.carrierId],
    checkDigitValid: m.checkDigitValid,
    trackingNumber: m.trackingNumber,
  }
  if (m.scac !== undefined) c.scac = m.scac
  if (m.service !== undefined) c.service = m.service
  const url = trackingUrlOf(m.carrierId, m.trackingNumber)
  if (url !== undefined) c.trackingUrl = url
  return c
}

/** A family of tracking-number shapes. `match` appends every reading of `s` it recognises. */
export interface Rule {
  /** Lengths the rule can match, so a scan is only offered to rules that could fit it. */
  readonly lengths: readonly number[]
  /** Carriers the rule can report: lets a symbol that names its carrier skip the others. */
  readonly carriers: readonly CarrierCode[]
  /** A carrier-specific prefix identifies it: safe to look for inside free text. */
  readonly distinctive: boolean
  /** What the rule reads, for the format table in the docs (docs/tracking-formats.md). */
  readonly formats: readonly FormatDoc[]
  /** `s` is upper case with separators removed. */
  match(s: string, out: Match[]): void
}

export function range(from: number, to: number): number[] {
  const out: number[] = []
  for (let n = from; n <= to; n++) out.push(n)
  return out
}
