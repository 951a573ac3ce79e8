import type { ReadResult } from 'zxing-wasm/reader'

/** One symbol read from a picture. */
export interface FoundBarcode {
  /** Format name, e.g. 'Code128', 'DataMatrix', 'PDF417', 'QRCode', 'MaxiCode', 'EAN-13'. */
  symbology: string
  /**
   * The data as encoded, control characters kept: GS between GS1 fields (FNC1), and the RS, GS and
   * EOT of ISO 15434 envelopes. `decodeScan` parses exactly what a keyboard-wedge scanner would type.
   */
  text: string
  /** Axis-aligned box around the symbol, in pixels of the input image. */
  position: { x: number; y: number; width: number; height: number }
  /** True for GS1 content (GS1-128, GS1 DataMatrix, GS1 QR): the leading FNC1 is not in `text`. */
  isGS1: boolean
  /** AIM symbology identifier (ISO/IEC 15424), e.g. ']C1' for GS1-128, ']d1' for DataMatrix. */
  aimId?: string
}

/**
 * Output names are part of this module's API, so they are spelled out here rather than taken from
 * zxing-wasm, whose own names changed between its 2.x and 3.x releases. Anything not listed keeps
 * zxing's canonical name.
 */
const SYMBOLOGY_NAMES: Readonly<Record<string, string>> = {
  Code39Std: 'Code39',
  Code39Ext: 'Code39',
  EAN13: 'EAN-13',
  EAN8: 'EAN-8',
  UPCA: 'UPC-A',
  UPCE: 'UPC-E',
  ITF14: 'ITF-14',
}

export function toFoundBarcode(result: ReadResult): FoundBarcode {
  const corners = [
    result.position.topLeft,
    result.position.topRight,
    result.position.bottomRight,
    result.position.bottomLeft,
  ]
  const xs = corners.map((p) => p.x)
  const ys = corners.map((p) => p.y)
  const x = Math.min(...xs)
  const y = Math.min(...ys)
  const found: FoundBarcode = {
    symbology: SYMBOLOGY_NAMES[result.format] ?? result.format,
    text: result.text,
    position: { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y },
    isGS1: result.contentType === 'GS1',
  }
  if (result.symbologyIdentifier) found.aimId = result.symbologyIdentifier
  return found
}
