import { splitRoutedPic } from '../tracking/rules-usps.js'
import { readAi } from './ai-table.js'

export const GS = '\u001d'

/** One AI and its data, in the order they appear. */
export type Element = readonly [ai: string, value: string]

/**
 * Splits a GS1 element string (GS1 General Specifications §7.8). FNC1 arrives as GS, or not at all
 * when the scanner drops it: then fixed-length AIs still split by length, and "420" + ZIP followed
 * by an IMpb package code is split by the IMpb structure (USPS Publication 199). Returns undefined
 * when the data is not a well-formed element string, so the caller can read it some other way.
 */
export function parseElementString(data: string): Element[] | undefined {
  const out: Element[] = []
  const n = data.length
  let pos = 0
  while (pos < n) {
    if (data.charCodeAt(pos) === 0x1d) {
      pos++
      continue
    }
    const found = readAi(data, pos)
    if (found === undefined) return undefined
    const { ai, spec } = found
    const start = pos + ai.length
    if (spec.fixed !== undefined) {
      const value = data.slice(start, start + spec.fixed)
      if (value.length !== spec.fixed || (spec.numeric && !/^\d+$/.test(value))) return undefined
      out.push([ai, value])
      pos = start + spec.fixed
      continue
    }
    const gs = data.indexOf(GS, start)
    const end = gs < 0 ? n : gs
    const value = data.slice(start, end)
    if (ai === '420' && value.length > spec.max) {
      const split = splitRoutedPic(value)[0]
      if (split === undefined) return undefined
      out.push(['420', split.zip], [split.pic.slice(0, 2), split.pic.slice(2)])
      pos = end
      continue
    }
    // A variable-length field longer than its maximum means a dropped FNC1 we cannot place.
    if (value.length === 0 || value.length > spec.max) return undefined
    if (spec.numeric && !/^\d+$/.test(value)) return undefined
    out.push([ai, value])
    pos = end
  }
  return out.length > 0 ? out : undefined
}

const PAREN_FORM = /^(?:\(\d{2,4}\)[^()]*)+$/
const PAREN_ELEMENT = /\((\d{2,4})\)([^()]*)/g

/**
 * The human-readable form "(420)12345(92)0559…" (GS1 General Specifications §4.15). Spaces inside
 * numeric data are print grouping and are dropped; text AIs keep theirs.
 */
export function parseParenthesised(text: string): Element[] | undefined {
  const compact = text.trim()
  if (!PAREN_FORM.test(compact)) return undefined
  const out: Element[] = []
  for (const m of compact.matchAll(PAREN_ELEMENT)) {
    const ai = m[1] ?? ''
    const found = readAi(ai, 0)
    if (found === undefined || found.ai !== ai) return undefined
    const raw = (m[2] ?? '').trim()
    const value = found.spec.numeric || /^[\d\s]+$/.test(raw) ? raw.replace(/\s+/g, '') : raw
    if (value.length === 0 || value.length > found.spec.max) return undefined
    out.push([ai, value])
  }
  return out.length > 0 ? out : undefined
}
