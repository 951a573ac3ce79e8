import { rankMatches, toCandidate, type Match } from './tracking/match.js'
import type { DecodedAddress, DecodeResult } from './types.js'

/** What the format readers accumulate before ranking; turned into a DecodeResult by `finishDraft`. */
export interface Draft {
  format: DecodeResult['format']
  fields: Record<string, string>
  matches: Match[]
  /** A tracking number read from a named field (or the plain scan) when no carrier reading wins. */
  trackingNumber: string | null
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
  if (best !== undefined) {
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
    trackingNumber: best?.trackingNumber ?? draft.trackingNumber,
    format: draft.format,
    fields: draft.fields,
    candidates: ranked.map(toCandidate),
  }
  if (draft.envelope !== undefined) result.envelope = draft.envelope
  const receiver = prune(draft.receiver)
  if (hasAny(receiver)) result.receiver = receiver
  const destination = prune(draft.destination)
  if (hasAny(destination)) result.destination = destination
  if (draft.packageCount !== undefined) result.packageCount = draft.packageCount
  if (draft.weight !== undefined) result.weight = draft.weight
  return result
}

/** Drops undefined and empty values so the JSON carries only what the symbol held. */
function prune<T extends object>(o: T): T {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== '') out[k] = v
  return out as T
}
