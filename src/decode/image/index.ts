/**
 * Barcodes from a label photo: `readBarcodesFromImage(bytes)` → every symbol's raw text, ready for
 * `decodeScan` (src/decode). zxing-cpp (through zxing-wasm) does the reading, in one tuned pass.
 *
 * Reads: Code 128 (GS1-128), Code 39, ITF, EAN/UPC, DataMatrix, PDF417, QR Code, MaxiCode, from PNG,
 * JPEG or GIF. A 1 MP photo takes a median ≈ 60–80 ms as JPEG, ≈ 100–115 ms as PNG, p95 under 150 ms
 * for both (bench/decode-image.bench.ts).
 *
 * Limits of zxing-cpp at this version, pinned by test/decode/image/limits.test.ts:
 * - DataMatrix and QR are found at any angle; linear codes only while one scan line still crosses
 *   every bar (about ±10° for a long GS1-128, more for short codes) or near 90°/180°/270°; PDF417
 *   only within a few degrees of those, depending on module size and error-correction level.
 * - MaxiCode only from a "pure" image: upright and alone on a plain page (a flat scan or a crop).
 * - Transparent PNG pixels count as their colour, usually black: a label drawn on a transparent
 *   canvas (bwip-js's default) reads as nothing until flattened onto white.
 * - WebP, HEIC, AVIF and TIFF are refused with UnsupportedImageFormatError: stb_image cannot open them.
 * - The read is synchronous wasm on the calling thread: it holds that thread for its whole run
 *   (≈ 60–120 ms per megapixel, 0.25–0.4 s for the very first read while V8 compiles the wasm).
 *   The service therefore reads through ImageDecodePool (worker threads, a time budget, a pixel
 *   cap); `readBarcodesFromImage` itself refuses pictures over 50 MP unless told otherwise.
 *
 * The printed text (`ImageDecodePool.readLabel`) is read by tesseract.js in the same thread, after
 * the barcodes: the English LSTM model from @tesseract.js-data/eng, never downloaded (ocr.ts,
 * ocr-thread.ts). ../label finds the SHIP TO block in it.
 */
export {
  ImageDecodeBusyError,
  ImageDecodeError,
  ImageDecodeTimeoutError,
  ImageTooLargeError,
  UnsupportedImageFormatError,
} from './errors.js'
export { ImageDecodePool, type ImageDecodePoolOptions, type LabelRead } from './image-decode-pool.js'
export type { FoundBarcode } from './found-barcode.js'
export { readBarcodesFromImage } from './read-barcodes-from-image.js'
