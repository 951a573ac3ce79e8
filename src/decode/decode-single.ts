import { isValidGs1CheckDigit } from './check-digits.js'
import { newDraft, type Draft } from './draft.js'
import { findInFreeText } from './free-text.js'
import { GS, parseElementString, parseParenthesised, type Element } from './gs1/element-string.js'
import { applyGs1Elements } from './gs1/interpret.js'
import type { NormalisedScan } from './normalise.js'
import { compactNumber, identifyTrackingNumber } from './tracking/identify.js'
import { RANK } from './tracking/match.js'

/** What a plain scan may be reported as when no carrier reading fits: one identifier with digits. */
const IDENTIFIER = /^[0-9A-Z%]{4,40}$/

/** A 1D symbol or a 2D symbol without an ISO 15434 envelope: GS1 element strings or one number. */
export function decodeSingle(scan: NormalisedScan): Draft {
  const text = scan.text
  const elements = readGs1(scan)
  if (elements !== undefined) {
    const draft = newDraft('GS1')
    applyGs1Elements(draft, elements)
    if (draft.matches.length === 0 && elements.every(([ai]) => ai.length === 2 && ai.startsWith('9'))) {
      // Company-internal AIs only: a carrier barcode printed as GS1-128 (FedEx "96…") is still that
      // carrier's number.
      const whole = compactNumber(elements.map(([ai, v]) => ai + v).join(''))
      draft.matches.push(...identifyTrackingNumber(whole))
    } else if (!scan.gs1 && text.length === 20 && text.startsWith('00') && !text.includes(GS)) {
      // Inferred from bare digits ("00" + SSCC): the same digits may be a carrier's own number as
      // well (a USPS 20-digit number starting 00 passes the SSCC check too): listed after the SSCC.
      for (const m of identifyTrackingNumber(text))
        draft.matches.push({ ...m, rank: Math.min(m.rank, RANK.ALTERNATE_RARE) })
    }
    return draft
  }
  const draft = newDraft('PLAIN')
  const compact = compactNumber(text)
  if (scan.aim?.startsWith(']E') === true) {
    // EAN/UPC is a product code: no carrier prints a tracking number in it.
    draft.fields.gtin = compact
    return draft
  }
  draft.matches.push(...identifyTrackingNumber(compact))
  // Words around the number (a QR sentence, a URL): look inside rather than glue them together.
  const freeText = draft.matches.length === 0 && /[^0-9A-Za-z-]/.test(text)
  if (freeText) draft.matches.push(...findInFreeText(text))
  if (!freeText && IDENTIFIER.test(compact) && /\d/.test(compact)) draft.trackingNumber = compact
  return draft
}

/**
 * The scan as GS1 element strings, when it is one: the parenthesised human-readable form; data the
 * AIM identifier or a GS marks as GS1; or, with FNC1 dropped and no AIM, the parcel constructs that
 * cannot be anything else ("420" + ZIP, alone or before an IMpb code, and "00" + a valid SSCC).
 */
function readGs1(scan: NormalisedScan): readonly Element[] | undefined {
  const text = scan.text
  if (text.startsWith('(')) return parseParenthesised(text)
  if (scan.gs1 || text.includes(GS)) return parseElementString(text)
  if (!/^\d+$/.test(text)) return undefined
  if (text.startsWith('420')) {
    if (text.length === 8) return parseElementString(text)
    if (text.length === 12 && identifyTrackingNumber(text).some((m) => m.checkDigitValid === true)) return undefined
    const elements = parseElementString(text)
    return elements?.some(([ai]) => ai === '420') === true && (text.length === 12 || elements.length > 1)
      ? elements
      : undefined
  }
  if (text.length === 20 && text.startsWith('00')) {
    return isValidGs1CheckDigit(text.slice(2)) ? parseElementString(text) : undefined
  }
  return undefined
}
