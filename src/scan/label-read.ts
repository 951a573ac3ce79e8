import type { RecipientMatch, RecipientQuery } from '../contacts/index.js'
import { findShipTo, parsePersonName, type LabelRead, type ShipTo } from '../decode/index.js'
import type { LabelAnswer } from './api/label-schemas.js'
import type { FoundAndDecoded } from './scan-image-service.js'

export type { LabelAnswer } from './api/label-schemas.js'

/** What a client is told when the text was not read; why (tesseract's own words, paths) is logged. */
export const TEXT_NOT_READ = 'The printed text could not be read; the barcodes stand.'

/** Below this mean OCR confidence the clerk is asked to take the photo again. */
const RETAKE_BELOW = 60

/**
 * The label's text, its SHIP TO block and the directory's answer for it. When the printed text
 * names nobody but a 2D barcode carries a ship-to name (UPS MaxiCode, FedEx PDF417, …), that name
 * is matched instead: the symbol's text is exact where OCR guesses.
 */
export async function answerLabel(
  subId: string,
  picture: LabelRead,
  barcodes: FoundAndDecoded[],
  siteId: string | undefined,
  match: ((subId: string, q: RecipientQuery) => Promise<RecipientMatch>) | undefined,
  logTextError: (detail: string) => void = () => undefined,
): Promise<LabelAnswer> {
  const text = picture.text
  const out: LabelAnswer = {
    lines: text?.lines ?? [],
    confidence: text?.confidence ?? 0,
    retake: true,
  }
  if (picture.textError !== undefined) {
    out.error = TEXT_NOT_READ
    logTextError(picture.textError)
  }
  const found = text ? findShipTo(text.lines) : undefined
  const shipTo = found?.name || found?.company ? found : (fromBarcodes(barcodes) ?? found)
  if (shipTo) out.shipTo = shapeShipTo(shipTo)
  out.retake = !shipTo?.name || (shipTo.foundBy !== 'barcode' && out.confidence < RETAKE_BELOW)
  if (match && shipTo && (shipTo.name || shipTo.company)) {
    const q: RecipientQuery = {}
    if (shipTo.name) q.name = shipTo.name
    if (shipTo.company) q.company = shipTo.company
    if (shipTo.unit) q.unit = shipTo.unit
    if (siteId) q.siteId = siteId
    out.recipient = await match(subId, q)
  }
  return out
}

type Found = Omit<ShipTo, 'foundBy'> & { foundBy: ShipTo['foundBy'] | 'barcode' }

function fromBarcodes(barcodes: FoundAndDecoded[]): Found | undefined {
  for (const b of barcodes) {
    const r = b.decoded?.package.receiver
    if (!r?.name && !r?.company) continue
    const lines = [r.name, r.company].filter((l): l is string => !!l)
    const out: Found = { lines, addressLines: [], foundBy: 'barcode' }
    if (r.name) {
      out.nameLine = r.name
      const name = parsePersonName(r.name)
      if (name) out.name = name
    }
    if (r.company) out.company = r.company
    return out
  }
  return undefined
}

function shapeShipTo(s: Found): NonNullable<LabelAnswer['shipTo']> {
  const out: NonNullable<LabelAnswer['shipTo']> = { lines: s.lines, addressLines: s.addressLines, foundBy: s.foundBy }
  if (s.nameLine) out.nameLine = s.nameLine
  if (s.name) out.name = { first: s.name.first, middle: s.name.middle, last: s.name.last }
  if (s.company) out.company = s.company
  if (s.unit) out.unit = s.unit
  return out
}
