import { CARRIER_NAMES } from './tables/carriers.js'
import { confidentMatch, isStrong, rankMatches, toCandidate, type Match } from './tracking/match.js'
import type { DecodedAddress, DecodeResult, StatedCarrier } from './types.js'

/** What the format readers accumulate before ranking; turned into a DecodeResult by `finishDraft`. */
export interface Draft {
  format: DecodeResult['format']
  fields: Record<string, string>
  matches: Match[]
  /** A tracking number read from a named field (or the plain scan) when no carrier reading wins. */
  trackingNumber: string | null
  /**
   * The parcel's own key when the data gives one that is surer than any carrier reading of it: a
   * GS1 SSCC, or a MaxiCode short tracking field that more than one full 1Z number fits. Reported
   * as the tracking number unless one strong carrier reading names another number.
   */
  keyNumber?: string
  receiver: DecodedAddress
  destination: NonNullable<DecodeResult['destination']>
  envelope?: { formats: string[]; header?: string }
  packageCount?: { n: number; of: number }
  weight?: string
}

export function newDraft(format: DecodeResult['format']): Draft {
  return { format, fields: {}, matches: [], trackingNumber: null, receiver: {}, destination: {} }
}

/** Keeps the first value seen for a key; repeats get "#2", "#3"… so nothing is silently lost. */
export function setField(draft: Draft, key: string, value: string): void {
  if (value === '') return
  if (!(key in draft.fields)) {
    draft.fields[key] = value
    return
  }
  for (let i = 2; ; i++) {
    const k = `${key}#${i}`
    if (!(k in draft.fields)) {
      draft.fields[k] = value
      return
    }
  }
}

function hasAny(o: object): boolean {
  for (const _ in o) return true
  return false
}

export function finishDraft(draft: Draft): DecodeResult {
  const ranked = rankMatches(draft.matches)
  const best = ranked[0]
  const trackingNumber = chooseTrackingNumber(draft, ranked)
  if (best !== undefined && best.trackingNumber === trackingNumber) {
    // The winning reading explains the number; its parts are worth showing, never overwriting.
    if (best.fields !== undefined) {
      for (const [k, v] of Object.entries(best.fields)) if (!(k in draft.fields)) draft.fields[k] = v
    }
    if (best.destination !== undefined) {
      draft.destination.postalCode ??= best.destination.postalCode
      draft.destination.country ??= best.destination.country
    }
  }
  const result: DecodeResult = {
    trackingNumber,
    format: draft.format,
    fields: draft.fields,
    candidates: ranked.map(toCandidate),
  }
  const stated = confidentMatch(ranked)
  if (stated !== undefined) result.carrier = statedCarrier(stated, ranked)
  if (draft.envelope !== undefined) result.envelope = draft.envelope
  const receiver = prune(draft.receiver)
  if (hasAny(receiver)) result.receiver = receiver
  const destination = prune(draft.destination)
  if (hasAny(destination)) result.destination = destination
  if (draft.packageCount !== undefined) result.packageCount = draft.packageCount
  if (draft.weight !== undefined) result.weight = draft.weight
  return result
}

/**
 * The number of the strong readings when they all agree on one; else the key the data gives
 * (SSCC, an ambiguous MaxiCode short field), else the best reading's, else what was read.
 */
function chooseTrackingNumber(draft: Draft, ranked: readonly Match[]): string | null {
  let strong: string | undefined
  let agree = true
  for (const m of ranked) {
    if (!isStrong(m)) continue
    if (strong === undefined) strong = m.trackingNumber
    else if (strong !== m.trackingNumber) agree = false
  }
  if (strong !== undefined && agree) return strong
  return draft.keyNumber ?? ranked[0]?.trackingNumber ?? draft.trackingNumber
}

/** The stated carrier; its service only when every strong reading of that carrier agrees on it. */
function statedCarrier(top: Match, ranked: readonly Match[]): StatedCarrier {
  const out: StatedCarrier = { carrierId: top.carrierId, name: CARRIER_NAMES[top.carrierId] }
  if (top.scac !== undefined) out.scac = top.scac
  const service = top.service
  if (service !== undefined) {
    const same = (m: Match) => m.service?.code === service.code && m.service?.name === service.name
    if (ranked.every((m) => m.carrierId !== top.carrierId || !isStrong(m) || same(m))) out.service = service
  }
  return out
}

/** Drops undefined and empty values so the JSON carries only what the symbol held. */
function prune<T extends object>(o: T): T {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== '') out[k] = v
  return out as T
}
