import { readFileSync } from 'node:fs'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findShipTo, ImageDecodePool, ImageTooLargeError } from '../../../src/decode/index.js'
import { readImageHeader } from '../../../src/decode/image/image-header.js'
import { readLabelText } from '../../../src/decode/image/ocr.js'
import {
  flattenLight,
  OCR_MAX_PIXELS,
  OcrRefusedError,
  prepareForOcr,
  type Grey,
} from '../../../src/decode/image/ocr-image.js'
import { scale } from './support/geometry.js'
import { encodeJpeg } from './support/jpeg.js'
import { interlaced16, png } from './support/png-build.js'
import { rasterFromPng } from './support/raster.js'

// What tesseract is given (issue 27): upright as the photo's EXIF says, grey, at most about 4 MP
// whatever the phone's sensor (libvips through sharp, shrinking while it decodes), its light
// evened. Barcodes keep reading the picture as sent.

const FIXTURES = new URL('../label/fixtures/', import.meta.url)
const manifest = JSON.parse(readFileSync(new URL('manifest.json', FIXTURES), 'utf8')) as Record<
  string,
  { printedName: string }
>
const printedName = manifest['label-1-clean.png']!.printedName.toUpperCase()
const labelPng = readFileSync(new URL('label-1-clean.png', FIXTURES))
const cleanLabel = rasterFromPng(labelPng)
/** The service's image bound (IMAGE_MAX_PIXELS's default). */
const MAX_PIXELS = 50_000_000
const prepare = (bytes: Uint8Array, maxPixels = MAX_PIXELS) =>
  prepareForOcr(bytes, readImageHeader(bytes), { maxPixels })

/** The PGM's width, height and pixels, from its header. */
function pgm(page: Uint8Array): Grey {
  const head = Buffer.from(page.subarray(0, 40)).toString('latin1')
  const m = /^P5\n(\d+) (\d+)\n255\n/.exec(head)!
  return { width: Number(m[1]), height: Number(m[2]), data: page.subarray(m[0].length) }
}

/** The SHIP TO name tesseract reads from a prepared page. */
async function shipToName(page: Uint8Array): Promise<string | undefined> {
  return findShipTo((await readLabelText(page)).lines)?.nameLine?.toUpperCase()
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

/** The picture as EXIF orientation `o` says it is to be seen (TIFF 6.0, tag 274: 2–8 mirrored and/or turned). */
function orient(g: Grey, o: number): Grey {
  const swap = o >= 5
  const width = swap ? g.height : g.width
  const height = swap ? g.width : g.height
  const data = new Uint8Array(g.data.length)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      // Where output (x, y) comes from in the stored picture.
      const [sx, sy] = [
        [x, y],
        [x, y],
        [g.width - 1 - x, y],
        [g.width - 1 - x, g.height - 1 - y],
        [x, g.height - 1 - y],
        [y, x],
        [y, g.height - 1 - x],
        [g.width - 1 - y, g.height - 1 - x],
        [g.width - 1 - y, x],
      ][o]!
      data[y * width + x] = g.data[sy! * g.width + sx!]!
    }
  return { width, height, data }
}

/** What a camera stores for a picture to be seen upright under orientation `o`: 6 and 8 undo each other, the rest themselves. */
const stored = (upright: Grey, o: number) => orient(upright, o === 6 ? 8 : o === 8 ? 6 : o)

const meanDifference = (a: Grey, b: Grey) => {
  let sum = 0
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i]! - b.data[i]!)
  return sum / a.data.length
}

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
  it('the stored pictures of this test are what TIFF 6.0 says (6: a quarter clockwise to view, 8: the other way, 3: half a turn)', () => {
    const g: Grey = { width: 3, height: 2, data: Uint8Array.from([1, 2, 3, 4, 5, 6]) }
    expect(orient(g, 6)).toEqual({ width: 2, height: 3, data: Uint8Array.from([4, 1, 5, 2, 6, 3]) })
    expect(orient(g, 8)).toEqual({ width: 2, height: 3, data: Uint8Array.from([3, 6, 2, 5, 1, 4]) })
    expect(orient(g, 3)).toEqual({ width: 3, height: 2, data: Uint8Array.from([6, 5, 4, 3, 2, 1]) })
    for (let o = 1; o <= 8; o++) expect(orient(stored(g, o), o)).toEqual(g)
  })

  it('orientations 1 to 8, in either byte order: the page is the label upright', async () => {
    // 160 × 240: whole 8-px blocks, so each stored picture's JPEG blocks are the upright one's, moved.
    const label = scale(cleanLabel, 0.25)
    const upright = pgm(await prepare(encodeJpeg(label, 90)))
    // A wrong turn or mirror is far from upright; the right one differs only by JPEG noise.
    for (const o of [2, 3, 4]) expect(meanDifference(orient(upright, o), upright)).toBeGreaterThan(25)
    for (let o = 1; o <= 8; o++)
      for (const little of [false, true]) {
        const page = pgm(await prepare(withOrientation(encodeJpeg(stored(label, o), 90), o, little)))
        expect([page.width, page.height]).toEqual([upright.width, upright.height])
        expect(meanDifference(page, upright)).toBeLessThan(3)
      }
  })
})

describe('what libvips cannot decode', () => {
  it('goes to tesseract as it came within 4 MP (tesseract may still read it; the pool reports its failure)', async () => {
    const broken = encodeJpeg(scale(cleanLabel, 0.25), 80).subarray(0, 400)
    expect(await prepare(broken)).toBe(broken)
  })

  it('is refused over 4 MP, never sent whole: a small JPEG declaring 50 MP, a GIF header declaring 6 MP', async () => {
    const jpeg = encodeJpeg(scale(cleanLabel, 0.25), 80)
    const sof = jpeg.findIndex((b, i) => b === 0xff && jpeg[i + 1] === 0xc0)
    const lying = Uint8Array.from(jpeg)
    lying.set([5770 >> 8, 5770 & 255, 8650 >> 8, 8650 & 255], sof + 5)
    const refused = prepare(lying)
    await expect(refused).rejects.toBeInstanceOf(OcrRefusedError)
    await expect(refused).rejects.toThrow(/could not be decoded for reading, and at 49\.9 MP it is over the 4 MP/)
    const gif = (w: number, h: number) =>
      Uint8Array.from([...Buffer.from('GIF89a'), w & 255, w >> 8, h & 255, h >> 8, 0])
    await expect(prepare(gif(3000, 2000))).rejects.toThrow(/could not be decoded.*6\.0 MP.*over the 4 MP/)
    const small = gif(1000, 1000)
    expect(await prepare(small)).toBe(small)
  })
})

describe('a large photo, up to the service image bound', () => {
  // The committed label enlarged by libvips to a phone's sizes, built once for the whole file:
  // 5,770 × 8,655 (49.9 MP) as a baseline and a progressive JPEG, 3,650 × 5,475 (20 MP) as a PNG.
  const big: Record<'jpeg' | 'progressive' | 'png', Uint8Array> = {} as never
  const pools: ImageDecodePool[] = []
  beforeAll(async () => {
    const at = (width: number) => sharp(labelPng).resize({ width })
    big.jpeg = await at(5770).jpeg({ quality: 85 }).toBuffer()
    big.progressive = await at(5770).jpeg({ quality: 85, progressive: true }).toBuffer()
    big.png = await at(3650).png({ compressionLevel: 1 }).toBuffer()
  }, 60_000)
  afterAll(async () => Promise.all(pools.map((p) => p.close())))

  it('reaches tesseract at about 4 MP, and its SHIP TO name is read: 50 MP baseline and progressive JPEG, 20 MP PNG', async () => {
    for (const [kind, bytes] of Object.entries(big)) {
      const { width, height } = readImageHeader(bytes)
      expect(width * height, kind).toBeGreaterThan(kind === 'png' ? 19_900_000 : 49_900_000)
      const page = await prepare(bytes)
      const { width: w, height: h, data } = pgm(page)
      expect(w * h, kind).toBeLessThanOrEqual(OCR_MAX_PIXELS)
      expect(w * h, kind).toBeGreaterThan(OCR_MAX_PIXELS * 0.99)
      expect(data.length, kind).toBe(w * h)
      expect(await shipToName(page), kind).toBe(printedName)
    }
  }, 120_000)

  it('through the decode pool (libvips in a worker thread): the text is read, the barcodes from the picture as sent', async () => {
    const pool = new ImageDecodePool({ threads: 1, maxQueue: 2, timeoutMs: 120_000, maxPixels: MAX_PIXELS })
    pools.push(pool)
    const read = await pool.readLabel(big.jpeg)
    expect(read.textError).toBeUndefined()
    expect(findShipTo(read.text!.lines)?.nameLine?.toUpperCase()).toBe(printedName)
    expect(read.barcodes.map((b) => b.symbology).sort()).toEqual(['Code128', 'DataMatrix'])
  }, 120_000)

  it('over the service image bound: refused, never decoded', async () => {
    const refused = prepare(big.jpeg, 40_000_000)
    await expect(refused).rejects.toBeInstanceOf(OcrRefusedError)
    await expect(refused).rejects.toThrow(/at 49\.9 MP the photo is over the 40\.0 MP the service decodes/)
    const pool = new ImageDecodePool({ threads: 1, maxQueue: 2, timeoutMs: 120_000, maxPixels: 40_000_000 })
    pools.push(pool)
    await expect(pool.readLabel(big.jpeg)).rejects.toBeInstanceOf(ImageTooLargeError)
    expect(pool.threads).toBe(0) // refused from the header, before any thread
  })
})

describe('PNGs pngjs could not bound are read in bounded memory', () => {
  it('an interlaced one whose IDAT inflates to 64 MB, declared 8×8: an 8×8 page, nothing inflated past it', async () => {
    const bomb = png(8, 8, 8, 0, 1, Buffer.alloc(64 * 2 ** 20))
    expect(bomb.length).toBeLessThan(100_000)
    const before = process.memoryUsage().rss
    const page = pgm(await prepare(bomb))
    expect([page.width, page.height]).toEqual([8, 8])
    expect(process.memoryUsage().rss - before).toBeLessThan(16 * 2 ** 20)
  })

  it('an interlaced one declared 7,000 × 7,000 (49 MP), 64 KB of IDAT: a 4 MP page, memory far under the picture', async () => {
    const bomb = png(7000, 7000, 8, 0, 1, Buffer.alloc(64 * 2 ** 20))
    const before = process.memoryUsage().rss
    const page = pgm(await prepare(bomb))
    expect(page.width * page.height).toBeLessThanOrEqual(OCR_MAX_PIXELS)
    expect(process.memoryUsage().rss - before).toBeLessThan(49 * 2 ** 20)
  })

  it('an interlaced 16-bit label (5.5 MP) is read for text', async () => {
    const deep = interlaced16(scale(cleanLabel, 3))
    expect([deep[24], deep[28]]).toEqual([16, 1])
    const page = await prepare(deep)
    const { width, height } = pgm(page)
    expect(width * height).toBeLessThanOrEqual(OCR_MAX_PIXELS)
    expect(await shipToName(page)).toBe(printedName)
  }, 60_000)
})

describe('other formats libvips decodes', () => {
  it('a GIF of the label over 4 MP is shrunk and read', async () => {
    const gif = await sharp(labelPng).resize({ width: 1800 }).gif().toBuffer()
    const page = await prepare(gif)
    const { width, height } = pgm(page)
    expect(width * height).toBeLessThanOrEqual(OCR_MAX_PIXELS)
    expect(width * height).toBeGreaterThan(OCR_MAX_PIXELS * 0.99)
    expect(await shipToName(page)).toBe(printedName)
  }, 60_000)
})
