import { readBarcodes, type ReadResult } from 'zxing-wasm/reader'
import { ImageDecodeError, ImageTooLargeError } from './errors.js'
import { toFoundBarcode, type FoundBarcode } from './found-barcode.js'
import { readImageHeader, type ImageHeader } from './image-header.js'
import { READER_OPTIONS } from './reader-options.js'
import { loadZXingReader, resetZXingReader } from './zxing-module.js'

/**
 * Above a 48 MP phone sensor's full frame. The wasm call is synchronous: a 900 MP PNG that deflates
 * to under 1 MB held its thread for 15 s before this limit. The service sets its own
 * (IMAGE_MAX_PIXELS) and reads in worker threads (image-decode-pool.ts).
 */
export const DEFAULT_MAX_PIXELS = 50_000_000

/** Refuses a picture whose header declares more than `maxPixels`, before anything is decoded. */
export function checkPixelCount(header: ImageHeader, maxPixels: number): void {
  if (header.width * header.height > maxPixels) throw new ImageTooLargeError(header.width, header.height, maxPixels)
}

/**
 * Reads every barcode in a photo or scan (PNG, JPEG or GIF file bytes), in one zxing pass.
 * Resolves to [] when the picture holds no readable symbol.
 *
 * @throws UnsupportedImageFormatError for WebP, HEIC, AVIF or TIFF (a subclass of ImageDecodeError)
 * @throws ImageTooLargeError when the header declares more than `maxPixels` (a subclass of ImageDecodeError)
 * @throws ImageDecodeError when the bytes are not a readable PNG, JPEG or GIF
 */
export async function readBarcodesFromImage(
  bytes: Uint8Array,
  opts: { maxPixels?: number } = {},
): Promise<FoundBarcode[]> {
  return (await readSymbols(bytes, opts)).found
}

/**
 * As readBarcodesFromImage, with the angle the label is turned by, in radians (clockwise positive,
 * image y pointing down, within ±45°), as its largest 2D symbol shows it: the symbol's edges stand
 * square to the label's text. Linear symbols cannot tell: zxing reports them by the scan line that
 * crossed them, level whatever the label's angle. Undefined when no 2D symbol was read. The OCR
 * deskews the label by it (ocr.ts).
 */
export async function readSymbols(
  bytes: Uint8Array,
  opts: { maxPixels?: number } = {},
): Promise<{ found: FoundBarcode[]; radians?: number }> {
  const header = readImageHeader(bytes)
  checkPixelCount(header, opts.maxPixels ?? DEFAULT_MAX_PIXELS)
  await loadZXingReader()
  let results: ReadResult[]
  try {
    results = await readBarcodes(bytes, READER_OPTIONS)
  } catch (error) {
    // zxing reports bad input as a result, so a throw is a wasm trap or a failed allocation, after
    // which the instance cannot be trusted. The next read starts a fresh one.
    resetZXingReader()
    throw error
  }
  const found: FoundBarcode[] = []
  let longest = 0
  let radians: number | undefined
  for (const result of results) {
    if (!result.isValid) {
      // With returnErrors off, the one invalid result zxing hands back is "image failed to load".
      if (!result.format || result.format === 'None') {
        throw new ImageDecodeError(`Unreadable ${header.format.toUpperCase()} image: ${result.error}`)
      }
      continue
    }
    const barcode = toFoundBarcode(result)
    if (!found.some((seen) => isSameSymbol(seen, barcode))) found.push(barcode)
    if (MATRIX.has(barcode.symbology)) {
      const { topLeft, topRight } = result.position
      const dx = topRight.x - topLeft.x
      const dy = topRight.y - topLeft.y
      const length = Math.hypot(dx, dy)
      if (length > longest) {
        longest = length
        // The symbol may stand in any quarter turn: the label's skew is the angle modulo 90°.
        const quarter = Math.PI / 2
        radians = Math.atan2(dy, dx) - quarter * Math.round(Math.atan2(dy, dx) / quarter)
      }
    }
  }
  return radians === undefined ? { found } : { found, radians }
}

const MATRIX = new Set(['DataMatrix', 'QRCode', 'PDF417'])

/**
 * zxing can report one symbol from two of its passes (seen with full-size and 1/2-size scans);
 * their boxes overlap. Two identical labels side by side stay two.
 */
function isSameSymbol(a: FoundBarcode, b: FoundBarcode): boolean {
  if (a.symbology !== b.symbology || a.text !== b.text) return false
  const p = a.position
  const q = b.position
  const slack = 8 // linear codes' boxes can be a single scan line high
  return (
    p.x - slack <= q.x + q.width &&
    q.x - slack <= p.x + p.width &&
    p.y - slack <= q.y + q.height &&
    q.y - slack <= p.y + p.height
  )
}
