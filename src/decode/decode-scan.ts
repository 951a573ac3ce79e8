import { decodeSingle } from './decode-single.js'
import { newDraft, finishDraft, type Draft } from './draft.js'
import { DecodeError } from './errors.js'
import { findInFreeText } from './free-text.js'
import { decodeBareTransport, decodeEnvelope, findEnvelope } from './iso15434/decode-envelope.js'
import { normaliseScan } from './normalise.js'
import type { DecodeResult } from './types.js'

/** Larger than any label symbol (a full PDF417 holds under 2 KB); beyond it the input is not a scan. */
export const MAX_SCAN_LENGTH = 16_384

/** A MaxiCode structured carrier message read without its "[)>" envelope: postal GS country GS class GS. */
const BARE_TRANSPORT = /^[0-9A-Z ]{3,10}\u001d\d{3}\u001d\d{3}\u001d/

/** Fields whose values are never free text worth searching for a tracking number. */
const OPAQUE_FIELDS = /Base64$|^aim$/

/**
 * Turns scanned text (1D or 2D, with or without AIM identifier and control characters) into what the
 * clerk needs: the tracking number, ranked carrier readings, destination and recipient when present.
 * Throws DecodeError for empty or unreadable input; anything readable decodes, possibly to nothing.
 */
export function decodeScan(raw: string): DecodeResult {
  if (typeof raw !== 'string') throw new DecodeError('UNREADABLE_SCAN', 'The scan is not text.')
  if (raw.length > MAX_SCAN_LENGTH) {
    throw new DecodeError(
      'UNREADABLE_SCAN',
      `The scan is longer than ${MAX_SCAN_LENGTH} characters; no label symbol holds that much.`,
    )
  }
  const scan = normaliseScan(raw)
  if (!/[0-9A-Za-z]/.test(scan.text)) {
    if (!/[^\s\u0000-\u001f\u007f]/.test(scan.text)) throw new DecodeError('EMPTY_SCAN', 'The scan is empty.')
    throw new DecodeError('UNREADABLE_SCAN', 'The scan holds no letters or digits to decode.')
  }
  const start = findEnvelope(scan.text)
  let draft: Draft
  if (start >= 0) {
    draft = newDraft('ISO15434')
    decodeEnvelope(draft, scan.text, start)
    if (draft.matches.length === 0 && draft.trackingNumber === null) searchFields(draft)
  } else if (BARE_TRANSPORT.test(scan.text)) {
    draft = newDraft('ISO15434')
    decodeBareTransport(draft, scan.text)
  } else {
    draft = decodeSingle(scan)
  }
  if (scan.aim !== undefined) draft.fields = { aim: scan.aim, ...draft.fields }
  return finishDraft(draft)
}

/** An envelope with no transportation data (format 05/06 only): look for a number in its values. */
function searchFields(draft: Draft): void {
  for (const [key, value] of Object.entries(draft.fields)) {
    if (OPAQUE_FIELDS.test(key)) continue
    draft.matches.push(...findInFreeText(value))
  }
}
