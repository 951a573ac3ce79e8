import type { ReaderOptions } from 'zxing-wasm/reader'

/**
 * One zxing pass, tuned on the 1280×800 parcel photo of bench/decode-image.bench.ts to read every
 * symbol a label carries within 150 ms. Costs are the bench's JPEG medians on one core (whole pass
 * ≈ 62 ms, of which ≈ 9 ms is decoding the JPEG); the matrix of tilts, blurs and module sizes that
 * decided the rest lives in test/decode/image.
 */
export const READER_OPTIONS: Readonly<ReaderOptions> = {
  // What parcels carry. Leaving out the rest (Aztec, Codabar, DataBar, Code 93, …) saves ≈ 8 ms and
  // their false positives on cardboard texture and printed text.
  formats: ['Code128', 'Code39', 'ITF', 'EAN13', 'EAN8', 'UPCA', 'UPCE', 'DataMatrix', 'PDF417', 'QRCode', 'MaxiCode'],
  // +40 ms, and worth it: without it, 2 px-per-module symbols in a noisy photo were not found at all.
  // It scans every row for linear codes and runs the rotation-tolerant matrix detectors.
  tryHarder: true,
  // +23 ms. Labels are photographed in portrait as often as landscape, and linear codes and PDF417
  // standing on end are only found by the 90° pass.
  tryRotate: true,
  // +6 ms (+25 ms on PNG): white-on-black symbols, found on some retail and in-house labels.
  tryInvert: true,
  // +6 ms: also scans a 1/3-size copy when the short side is ≥ 500 px, which finds defocused
  // symbols the full-size pass misses (the bench's DataMatrix, as PNG). Factor 2 found slightly
  // more blurred linear codes but reported one Code 128 twice.
  tryDownscale: true,
  downscaleFactor: 3,
  downscaleThreshold: 500,
  // Morphological closing for 2D codes: +24 ms and not one extra read over 162 test photos.
  tryDenoise: false,
  // Linear codes must agree on two scan lines; with 1, blurred EAN-13 and ITF came back with wrong digits.
  minLineCount: 2,
  // A parcel carries a handful of symbols; the cap only bounds pathological input.
  maxNumberOfSymbols: 32,
  // Keeps GS (FNC1), RS and EOT as characters. The default, 'HRI', rewrites GS1 data as "(420)…"
  // and ISO 15434 separators as visible glyphs (␝), which `decodeScan` does not expect.
  textMode: 'Plain',
  // Code 39 and ITF check characters are optional in their specs and absent from many labels.
  validateOptionalChecksum: false,
  returnErrors: false,
}
