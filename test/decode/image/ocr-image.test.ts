import { readFileSync } from 'node:fs'
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
import { scale } from './support/geometry.js'
import { encodeJpeg } from './support/jpeg.js'
import { interlaced16, png, whiteRows } from './support/png-build.js'
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

/** A JPEG's frame header made to declare `width` × `height` (and SOF2, progressive, when asked). */
function declared(width: number, height: number, progressive = false): Uint8Array {
  const jpeg = encodeJpeg(scale(cleanLabel, 0.25), 80)
  const sof = jpeg.findIndex((b, i) => b === 0xff && jpeg[i + 1] === 0xc0)
  const bytes = Uint8Array.from(jpeg)
  if (progressive) bytes.set([0xff, 0xc2], sof)
  bytes.set([height >> 8, height & 255, width >> 8, width & 255], sof + 5)
  return bytes
}

describe('a photo over 16 MP is refused for text from its header, never decoded nor sent whole', () => {
  it('a 50 MP JPEG, baseline or progressive, and a 20 MP PNG: OcrRefusedError naming the size', async () => {
    for (const bytes of [declared(8660, 5774), declared(8660, 5774, true)]) {
      const refused = prepareForOcr(bytes, readImageHeader(bytes))
      await expect(refused).rejects.toBeInstanceOf(OcrRefusedError)
      await expect(refused).rejects.toThrow(/up to 16 MP, and this one is 50\.0 MP/)
    }
    const big = png(5000, 4000, 8, 0, 0, whiteRows(5000, 1))
    await expect(prepareForOcr(big, readImageHeader(big))).rejects.toThrow(/up to 16 MP, and this one is 20\.0 MP/)
  })

  it('the decode pool reports the refusal as the text error and still reads the barcodes', async () => {
    const big = scale(cleanLabel, 5.2)
    expect(big.width * big.height).toBeGreaterThan(OCR_DECODE_MAX_PIXELS)
    const pool = new ImageDecodePool({ threads: 1, maxQueue: 2, timeoutMs: 120_000, maxPixels: 50_000_000 })
    try {
      const read = await pool.readLabel(encodeJpeg(big, 85))
      expect(read.text).toBeUndefined()
      expect(read.textError).toMatch(/Text not read: a photo is read for text up to 16 MP/)
      expect(read.barcodes.map((b) => b.symbology).sort()).toEqual(['Code128', 'DataMatrix'])
    } finally {
      await pool.close()
    }
  }, 240_000)
})

describe('a PNG pngjs would not bound is not decoded here', () => {
  it('an interlaced one whose IDAT inflates to 64 MB, declared 8×8: given as it came, nothing inflated', async () => {
    const bomb = png(8, 8, 8, 0, 1, Buffer.alloc(64 * 2 ** 20))
    expect(bomb.length).toBeLessThan(100_000)
    expect(await prepareForOcr(bomb, readImageHeader(bomb))).toBe(bomb)
  })

  it('a 16-bit one within 4 MP goes as it came; an interlaced 16-bit one over 4 MP is refused', async () => {
    const deep = png(64, 48, 16, 0, 0, whiteRows(128, 48))
    expect(await prepareForOcr(deep, readImageHeader(deep))).toBe(deep)
    const big = interlaced16(scale(cleanLabel, 3.5))
    expect([big[24], big[28]]).toEqual([16, 1])
    await expect(prepareForOcr(big, readImageHeader(big))).rejects.toThrow(
      /interlaced or 16-bit PNG is not decoded for reading, and at 7\.5 MP it is over the 4 MP/,
    )
  })
})

describe('what is not decoded here is refused over 4 MP, never sent whole', () => {
  it('a GIF over 4 MP (no GIF decoder here); one within 4 MP goes as it came', async () => {
    const gif = (w: number, h: number) =>
      Uint8Array.from([...Buffer.from('GIF89a'), w & 255, w >> 8, h & 255, h >> 8, 0])
    const big = gif(3000, 2000)
    await expect(prepareForOcr(big, readImageHeader(big))).rejects.toThrow(/GIF.*6\.0 MP.*over the 4 MP/)
    const small = gif(1000, 1000)
    expect(await prepareForOcr(small, readImageHeader(small))).toBe(small)
  })
})
