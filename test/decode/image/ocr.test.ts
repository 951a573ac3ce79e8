import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { findShipTo, ImageDecodePool } from '../../../src/decode/index.js'
import { OCR_NETWORK_REFUSED } from '../../../src/decode/image/errors.js'

// Reading text takes seconds on a busy machine, the first read loading the model too.
const OCR_TIMEOUT = 120_000

// OCR of label photos (issue 27): offline, in the decode threads, never fatal. The labels are
// rendered by bench/render-label-fixtures.ts (Chromium + bwip-js); manifest.json says what each holds.

const FIXTURES = new URL('../label/fixtures/', import.meta.url)
const manifest = JSON.parse(readFileSync(new URL('manifest.json', FIXTURES), 'utf8')) as Record<
  string,
  { printedName: string }
>
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES)))
const pools: ImageDecodePool[] = []
const newPool = () => {
  const pool = new ImageDecodePool({ threads: 1, maxQueue: 4, timeoutMs: 120_000, maxPixels: 50_000_000 })
  pools.push(pool)
  return pool
}
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()))
})

describe('readLabel', () => {
  // One thread for the labels: the model loads once, as in the service.
  let shared: ImageDecodePool | undefined
  it.each(Object.keys(manifest))(
    'reads the SHIP TO name of %s',
    async (file) => {
      shared ??= newPool()
      const read = await shared.readLabel(fixture(file))
      expect(read.textError).toBeUndefined()
      expect(read.text!.confidence).toBeGreaterThan(50)
      const shipTo = findShipTo(read.text!.lines)
      expect(shipTo?.nameLine?.toUpperCase()).toBe(manifest[file]!.printedName.toUpperCase())
    },
    OCR_TIMEOUT,
  )

  it(
    'reads the barcodes as before, and no text unless asked',
    async () => {
      const pool = newPool()
      const file = Object.keys(manifest)[0]!
      const plain = await pool.read(fixture(file))
      const label = await pool.readLabel(fixture(file))
      expect(label.barcodes).toEqual(plain)
      expect(plain.map((b) => b.symbology).sort()).toEqual(['Code128', 'DataMatrix'])
    },
    OCR_TIMEOUT,
  )

  it(
    'never reaches the network: a model by URL is refused inside the OCR thread, and the barcodes stand',
    async () => {
      // The OCR thread has no fetch (ocr-thread.ts). The model path the service uses is a directory:
      // read from it, the text comes back, so nothing was fetched. Pointed at a URL, tesseract.js
      // would download it; here it is refused at once and the picture's barcodes are still answered.
      const pool = newPool()
      const file = Object.keys(manifest)[0]!
      const refused = await pool.readLabel(fixture(file), {
        langPath: 'https://cdn.jsdelivr.net/npm/@tesseract.js-data/eng/4.0.0_best_int',
      })
      expect(refused.textError).toContain(OCR_NETWORK_REFUSED)
      expect(refused.text).toBeUndefined()
      expect(refused.barcodes.length).toBe(2)
      // The same thread, the next photo: the offline model, read.
      const next = await pool.readLabel(fixture(file))
      expect(next.textError).toBeUndefined()
      expect(next.text!.lines.length).toBeGreaterThan(3)
    },
    OCR_TIMEOUT,
  )

  it(
    'a picture OCR cannot use answers without text, and the pool goes on',
    async () => {
      const pool = newPool()
      // A 1×1 PNG: a valid picture with nothing to read.
      const tiny = Uint8Array.from(
        Buffer.from(
          'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
          'base64',
        ),
      )
      const read = await pool.readLabel(tiny)
      expect(read.barcodes).toEqual([])
      expect(read.text?.lines ?? []).toEqual([])
      const file = Object.keys(manifest)[0]!
      expect((await pool.readLabel(fixture(file))).text!.lines.length).toBeGreaterThan(3)
    },
    OCR_TIMEOUT,
  )
})
