import { readFileSync } from 'node:fs'
import jpeg from 'jpeg-js'
import { describe, expect, it } from 'vitest'
import { decodeJpegLuma } from '../../../src/decode/image/jpeg-luma.js'
import { decodePngLuma } from '../../../src/decode/image/png-luma.js'
import { scale } from './support/geometry.js'
import { encodeJpeg } from './support/jpeg.js'
import { png } from './support/png-build.js'
import { rasterFromPng } from './support/raster.js'

// The streaming decoders behind the OCR page (ocr-image.ts): the luma they give is the picture's,
// as jpeg-js and pngjs give it whole.

const FIXTURES = new URL('../label/fixtures/', import.meta.url)

/** jpeg-js's RGBA as BT.601 luma, one byte a pixel. */
function jpegJsLuma(bytes: Uint8Array): Uint8Array {
  const img = jpeg.decode(bytes, { useTArray: true })
  const out = new Uint8Array(img.width * img.height)
  for (let i = 0; i < out.length; i++)
    out[i] = (img.data[4 * i]! * 77 + img.data[4 * i + 1]! * 150 + img.data[4 * i + 2]! * 29) >> 8
  return out
}

function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  let d = 0
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i]! - b[i]!)
  return d / a.length
}

describe('decodeJpegLuma', () => {
  it("reads a phone's colour 4:2:0 JPEG as jpeg-js does (within its rounding), at full size", () => {
    for (const f of ['label-1-photo.jpg', 'label-2-photo.jpg']) {
      const bytes = new Uint8Array(readFileSync(new URL(f, FIXTURES)))
      expect(bytes[bytes.findIndex((b, i) => b === 0xff && bytes[i + 1] === 0xc0) + 11]).toBe(0x22) // Y sampled 2×2
      const mine = decodeJpegLuma(bytes, 100_000_000)!
      const ref = jpegJsLuma(bytes)
      expect(mine.data.length).toBe(ref.length)
      expect(meanAbsDiff(mine.data, ref)).toBeLessThan(1)
    }
  })

  it('reads a grey JPEG with restart markers; scaled by 1/2, 1/4, 1/8 in the DCT when far over the bound', () => {
    const label = rasterFromPng(readFileSync(new URL('label-1-clean.png', FIXTURES)))
    const plain = encodeJpeg(label, 85)
    const restarted = encodeJpeg(label, 85, { restartInterval: 7 })
    expect(Buffer.from(restarted).includes(Buffer.from([0xff, 0xdd]))).toBe(true)
    const a = decodeJpegLuma(plain, 100_000_000)!
    const b = decodeJpegLuma(restarted, 100_000_000)!
    expect(b).toEqual(a)
    expect(meanAbsDiff(a.data, jpegJsLuma(plain))).toBeLessThan(0.1)
    // 640 × 960 at 1/s, s = 2, 4, 8 (a bound of exactly that many pixels): each pixel about the mean
    // of the s × s it stands for (at 1/8 the block's DC: its mean, but for rounding and clamping).
    for (const [s, meanBound] of [
      [2, 2],
      [4, 3],
      [8, 0.5],
    ] as const) {
      const w = a.width / s
      const h = a.height / s
      const small = decodeJpegLuma(restarted, w * h)!
      expect([small.width, small.height]).toEqual([w, h])
      let d = 0
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          let sum = 0
          for (let yy = 0; yy < s; yy++)
            for (let xx = 0; xx < s; xx++) sum += a.data[(y * s + yy) * a.width + x * s + xx]!
          d += Math.abs(small.data[y * w + x]! - sum / (s * s))
        }
      expect(d / (w * h)).toBeLessThan(meanBound)
    }
  })

  it('leaves what it does not read (progressive) to the caller', () => {
    const bytes = Uint8Array.from(
      encodeJpeg(scale(rasterFromPng(readFileSync(new URL('label-1-clean.png', FIXTURES))), 0.1)),
    )
    bytes[bytes.findIndex((b, i) => b === 0xff && bytes[i + 1] === 0xc0) + 1] = 0xc2
    expect(decodeJpegLuma(bytes, 1_000_000)).toBeUndefined()
  })
})

describe('decodePngLuma', () => {
  it('reads grey at 1, 2 and 4 bits a pixel, and a palette', async () => {
    // Two rows of four: 2-bit grey 0,1,2,3 / 3,2,1,0, filter none.
    const two = png(4, 2, 2, 0, 0, Buffer.from([0, 0b00011011, 0, 0b11100100]))
    expect(Array.from((await decodePngLuma(two, 1e6)).data)).toEqual([0, 85, 170, 255, 255, 170, 85, 0])
    const one = png(8, 1, 1, 0, 0, Buffer.from([0, 0b10100000]))
    expect(Array.from((await decodePngLuma(one, 1e6)).data)).toEqual([255, 0, 255, 0, 0, 0, 0, 0])
    const four = png(2, 1, 4, 0, 0, Buffer.from([0, 0xf0]))
    expect(Array.from((await decodePngLuma(four, 1e6)).data)).toEqual([255, 0])
    // A palette of pure red, green, blue: their BT.601 luma.
    const pal = png(3, 1, 8, 3, 0, Buffer.from([0, 0, 1, 2]))
    const plte = Buffer.concat([
      Buffer.from([0, 0, 0, 9]),
      Buffer.from('PLTE'),
      Buffer.from([255, 0, 0, 0, 255, 0, 0, 0, 255]),
      Buffer.alloc(4),
    ])
    const withPalette = Buffer.concat([pal.subarray(0, 33), plte, pal.subarray(33)])
    expect(Array.from((await decodePngLuma(withPalette, 1e6)).data)).toEqual([76, 149, 28])
  })

  it('refuses one whose data ends before its last row', async () => {
    await expect(decodePngLuma(png(4, 4, 8, 0, 0, Buffer.alloc(10)), 1e6)).rejects.toThrow(/ends early/)
  })
})
