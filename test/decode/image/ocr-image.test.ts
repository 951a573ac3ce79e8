import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { findShipTo, ImageDecodePool } from '../../../src/decode/index.js'
import { readImageHeader } from '../../../src/decode/image/image-header.js'
import {
  downscale,
  exifOrientation,
  flattenLight,
  OCR_DECODE_MAX_PIXELS,
  OCR_MAX_PIXELS,
  OcrRefusedError,
  orient,
  prepareForOcr,
  type Grey,
} from '../../../src/decode/image/ocr-image.js'
import { ocrThread, readLabelText } from '../../../src/decode/image/ocr.js'
import { scale } from './support/geometry.js'
import { encodeJpeg } from './support/jpeg.js'
import { grey8, interlaced16, png, whiteRows } from './support/png-build.js'
import { rasterFromPng, rasterToPng } from './support/raster.js'

// What tesseract is given (issue 27): grey, at most about 4 MP whatever the phone's sensor, its
// light evened, turned as the photo's EXIF says. Barcodes keep reading the picture as sent.

const FIXTURES = new URL('../label/fixtures/', import.meta.url)
const manifest = JSON.parse(readFileSync(new URL('manifest.json', FIXTURES), 'utf8')) as Record<
  string,
  { printedName: string }
>
const cleanLabel = rasterFromPng(readFileSync(new URL('label-1-clean.png', FIXTURES)))

/** The PGM's width and height, from its header. */
function pgmSize(pgm: Uint8Array): { width: number; height: number; pixels: Uint8Array } {
  const head = Buffer.from(pgm.subarray(0, 40)).toString('latin1')
  const m = /^P5\n(\d+) (\d+)\n255\n/.exec(head)!
  return { width: Number(m[1]), height: Number(m[2]), pixels: pgm.subarray(m[0].length) }
}

/** An APP1 Exif segment with IFD0's orientation tag, in either byte order, put after SOI. */
function withOrientation(jpeg: Uint8Array, orientation: number, little: boolean): Uint8Array {
  const u16 = (v: number) => (little ? [v & 255, v >> 8] : [v >> 8, v & 255])
  const u32 = (v: number) => (little ? [...u16(v & 0xffff), ...u16(v >>> 16)] : [...u16(v >>> 16), ...u16(v & 0xffff)])
  const tiff = [...(little ? [0x49, 0x49] : [0x4d, 0x4d]), ...u16(42), ...u32(8), ...u16(1)]
  const entry = [...u16(0x0112), ...u16(3), ...u32(1), ...u16(orientation), 0, 0]
  const body = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff, ...entry, ...u32(0)]
  const app1 = [0xff, 0xe1, ...[(body.length + 2) >> 8, (body.length + 2) & 255], ...body]
  return Uint8Array.from([...jpeg.subarray(0, 2), ...app1, ...jpeg.subarray(2)])
}

describe('downscale', () => {
  it('leaves a picture within the bound as it is, and area-averages a larger one to within it, its shape kept', () => {
    const small: Grey = { width: 100, height: 50, data: new Uint8Array(5000).fill(7) }
    expect(downscale(small, 5000)).toBe(small)
    // A 48 MP checkerboard: each output pixel covers black and white alike, so it averages to grey.
    const width = 8000
    const height = 6000
    const data = new Uint8Array(width * height)
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = (x + y) % 2 ? 255 : 0
    const out = downscale({ width, height, data }, OCR_MAX_PIXELS)
    expect(out.width * out.height).toBeLessThanOrEqual(OCR_MAX_PIXELS)
    expect(out.width * out.height).toBeGreaterThan(OCR_MAX_PIXELS * 0.99)
    expect(Math.abs(out.width / out.height - 4 / 3)).toBeLessThan(0.01)
    for (const v of out.data.subarray(0, 5000)) expect(Math.abs(v - 128)).toBeLessThanOrEqual(20)
  })
})

describe('flattenLight', () => {
  it('evens a label lit from one side: the paper white everywhere, the print still dark', () => {
    const width = 400
    const height = 300
    const data = new Uint8Array(width * height)
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const paper = 250 - Math.round((150 * x) / width) // 250 on the left, 100 on the right
        const ink = y % 40 < 4 && x % 50 < 30 // short strokes four pixels thick
        data[y * width + x] = ink ? Math.round(paper * 0.35) : paper
      }
    const flat = flattenLight({ width, height, data })
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const v = flat.data[y * width + x]!
        if (y % 40 < 4 && x % 50 < 30) expect(v).toBeLessThan(110)
        else expect(v).toBeGreaterThan(210)
      }
    // Before: the right half's paper is darker than the left half's print would be thresholded at.
    expect(data[width - 1]!).toBeLessThan(128)
  })
})

describe('EXIF orientation', () => {
  it('is read from either byte order, 1 when absent; the picture is turned as it says', async () => {
    const jpeg = encodeJpeg(scale(cleanLabel, 0.25), 80)
    expect(exifOrientation(jpeg)).toBe(1)
    for (const o of [3, 6, 8]) {
      expect(exifOrientation(withOrientation(jpeg, o, false))).toBe(o)
      expect(exifOrientation(withOrientation(jpeg, o, true))).toBe(o)
    }
    const g: Grey = { width: 3, height: 2, data: Uint8Array.from([1, 2, 3, 4, 5, 6]) }
    // 6: turn a quarter clockwise to view; 8: a quarter the other way; 3: half a turn.
    expect(orient(g, 6)).toEqual({ width: 2, height: 3, data: Uint8Array.from([4, 1, 5, 2, 6, 3]) })
    expect(orient(g, 8)).toEqual({ width: 2, height: 3, data: Uint8Array.from([3, 6, 2, 5, 1, 4]) })
    expect(orient(g, 3)).toEqual({ width: 3, height: 2, data: Uint8Array.from([6, 5, 4, 3, 2, 1]) })
    const turned = pgmSize(await prepareForOcr(withOrientation(jpeg, 6, true), readImageHeader(jpeg)))
    const plain = pgmSize(await prepareForOcr(jpeg, readImageHeader(jpeg)))
    expect([turned.width, turned.height]).toEqual([plain.height, plain.width])
  })
})

describe('prepareForOcr', () => {
  it('gives tesseract what it cannot decode as it came when it is within 4 MP (tesseract may still read it; the pool reports its failure)', async () => {
    const jpeg = encodeJpeg(scale(cleanLabel, 0.25), 80)
    const broken = jpeg.subarray(0, 400)
    expect(await prepareForOcr(broken, readImageHeader(broken))).toBe(broken)
  })
})

describe('a large photo', () => {
  const pools: ImageDecodePool[] = []
  afterAll(async () => Promise.all(pools.map((p) => p.close())))

  it('reaches tesseract at about 4 MP, and its SHIP TO name is read', async () => {
    // The committed label at 4× (2,560 × 3,840: 9.8 MP), as a phone's JPEG and as a PNG.
    const big = scale(cleanLabel, 4)
    const jpeg = encodeJpeg(big, 85)
    const png = rasterToPng(big)
    for (const bytes of [jpeg, png]) {
      const page = pgmSize(await prepareForOcr(bytes, readImageHeader(bytes)))
      expect(page.width * page.height).toBeLessThanOrEqual(OCR_MAX_PIXELS)
      expect(page.width * page.height).toBeGreaterThan(OCR_MAX_PIXELS * 0.99)
      expect(page.pixels.length).toBe(page.width * page.height)
    }
    const pool = new ImageDecodePool({ threads: 1, maxQueue: 2, timeoutMs: 120_000, maxPixels: 50_000_000 })
    pools.push(pool)
    const read = await pool.readLabel(jpeg)
    expect(read.textError).toBeUndefined()
    expect(findShipTo(read.text!.lines)?.nameLine?.toUpperCase()).toBe(
      manifest['label-1-clean.png']!.printedName.toUpperCase(),
    )
    // The barcodes were read from the picture as sent.
    expect(read.barcodes.map((b) => b.symbology).sort()).toEqual(['Code128', 'DataMatrix'])
  }, 180_000)
})

/**
 * The page prepared in a process of its own, with how far that process's peak RSS rose while it
 * was (this one's peak is behind it: it has just rendered the picture).
 */
function prepareInChild(bytes: Uint8Array): { width: number; height: number; growthMb: number } {
  const dir = mkdtempSync(path.join(tmpdir(), 'ocr-page-'))
  try {
    const file = path.join(dir, 'photo')
    writeFileSync(file, bytes)
    const script = fileURLToPath(new URL('support/prepare-in-child.ts', import.meta.url))
    const out = execFileSync(process.execPath, ['--import', 'tsx', script, file], { encoding: 'utf8' })
    return JSON.parse(out) as { width: number; height: number; growthMb: number }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// What a 50 MP photo costs decoded whole (jpeg-js: 787 MB peak; pngjs, 26 MP: 323 MB, measured
// 2026-11-28), against the page's own few MB: the bound says the picture was never held whole.
const GROWTH_BOUND_MB = 64

describe('a photo of any accepted size reaches tesseract at about 4 MP, in bounded memory', () => {
  afterAll(async () => (await ocrThread())?.terminate())

  it('a 50 MP JPEG (the label at 9×): its luma streamed and averaged, its SHIP TO name read', async () => {
    const big = scale(cleanLabel, 9.03)
    expect(big.width * big.height).toBeGreaterThan(50_000_000)
    const jpeg = encodeJpeg(big, 85, { restartInterval: 40 })
    const child = prepareInChild(jpeg)
    expect(child.width * child.height).toBeLessThanOrEqual(OCR_MAX_PIXELS)
    expect(child.width * child.height).toBeGreaterThan(OCR_MAX_PIXELS * 0.99)
    expect(child.growthMb).toBeLessThan(GROWTH_BOUND_MB)
    const text = await readLabelText(await prepareForOcr(jpeg, readImageHeader(jpeg)))
    expect(findShipTo(text.lines)?.nameLine?.toUpperCase()).toBe(
      manifest['label-1-clean.png']!.printedName.toUpperCase(),
    )
  }, 240_000)

  it(`a ${OCR_DECODE_MAX_PIXELS / 1e6}+ MP PNG, colour, grey, and 16-bit interlaced: the last two give the same page`, async () => {
    const big = scale(cleanLabel, 5.2)
    expect(big.width * big.height).toBeGreaterThan(OCR_DECODE_MAX_PIXELS)
    const deep = interlaced16(big)
    expect([deep[24], deep[28]]).toEqual([16, 1])
    const child = prepareInChild(deep)
    expect(child.width * child.height).toBeLessThanOrEqual(OCR_MAX_PIXELS)
    expect(child.width * child.height).toBeGreaterThan(OCR_MAX_PIXELS * 0.99)
    expect(child.growthMb).toBeLessThan(GROWTH_BOUND_MB)
    const pages = await Promise.all(
      [rasterToPng(big), grey8(big), deep].map(async (b) => pgmSize(await prepareForOcr(b, readImageHeader(b)))),
    )
    for (const page of pages) expect([page.width, page.height]).toEqual([child.width, child.height])
    expect(Buffer.from(pages[2]!.pixels).equals(Buffer.from(pages[1]!.pixels))).toBe(true)
  }, 240_000)
})

describe('a PNG is read only as far as its header declares', () => {
  it('an interlaced one whose IDAT inflates to 64 MB, declared 8×8: its 8×8 page, the rest never inflated', async () => {
    const bomb = png(8, 8, 8, 0, 1, Buffer.alloc(64 * 2 ** 20))
    expect(bomb.length).toBeLessThan(100_000)
    const page = pgmSize(await prepareForOcr(bomb, readImageHeader(bomb)))
    expect([page.width, page.height]).toEqual([8, 8])
  })

  it('a 16-bit PNG gives the page the same picture at 8 bits gives', async () => {
    const deep = png(64, 48, 16, 0, 0, whiteRows(128, 48))
    const plain = png(64, 48, 8, 0, 0, whiteRows(64, 48))
    const a = pgmSize(await prepareForOcr(deep, readImageHeader(deep)))
    expect(a).toMatchObject({ width: 64, height: 48 })
    expect(a).toEqual(pgmSize(await prepareForOcr(plain, readImageHeader(plain))))
  })
})

describe('what has no bounded way to tesseract is refused over 4 MP, never sent whole', () => {
  it(`a progressive JPEG over ${OCR_DECODE_MAX_PIXELS / 1e6} MP (only jpeg-js reads it, whole)`, async () => {
    const jpeg = encodeJpeg(scale(cleanLabel, 0.25), 80)
    // Its frame header made SOF2 (progressive) and 5,000 × 4,000: refused from the header alone.
    const sof = jpeg.findIndex((b, i) => b === 0xff && jpeg[i + 1] === 0xc0)
    const bytes = Uint8Array.from(jpeg)
    bytes.set([0xff, 0xc2], sof)
    bytes.set([4000 >> 8, 4000 & 255, 5000 >> 8, 5000 & 255], sof + 5)
    const refused = prepareForOcr(bytes, readImageHeader(bytes))
    await expect(refused).rejects.toBeInstanceOf(OcrRefusedError)
    await expect(refused).rejects.toThrow(/progressive.*20\.0 MP/)
  })

  it('a GIF over 4 MP (no GIF decoder here); one within 4 MP goes as it came', async () => {
    const gif = (w: number, h: number) =>
      Uint8Array.from([...Buffer.from('GIF89a'), w & 255, w >> 8, h & 255, h >> 8, 0])
    const big = gif(3000, 2000)
    await expect(prepareForOcr(big, readImageHeader(big))).rejects.toThrow(/GIF.*6\.0 MP.*over the 4 MP/)
    const small = gif(1000, 1000)
    expect(await prepareForOcr(small, readImageHeader(small))).toBe(small)
  })
})
