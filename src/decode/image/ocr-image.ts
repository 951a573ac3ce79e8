import jpeg from 'jpeg-js'
import { PNG } from 'pngjs'
import { downscale, type Grey } from './area-average.js'
import type { ImageHeader } from './image-header.js'

export { downscale, type Grey } from './area-average.js'

/**
 * About what a phone's photo of a 4×6 label needs for its text: the SHIP TO lines stay 20 px or
 * more high. Tesseract's time grows with the pixels it is given; a 50 MP photo took it tens of
 * seconds and hundreds of megabytes for nothing more. Barcodes are read from the picture as sent.
 */
export const OCR_MAX_PIXELS = 4_000_000

/**
 * The picture tesseract reads: grey, at most OCR_MAX_PIXELS (area-averaged down, never up), its
 * lighting flattened (below), as a binary PGM that tesseract's Leptonica reads without a decoder.
 * Nothing goes to tesseract over 4 MP: a JPEG or PNG up to OCR_DECODE_MAX_PIXELS is decoded and
 * shrunk here; what is larger, or what is not decoded here (a GIF, an interlaced or 16-bit PNG, a
 * stream the decoders refuse) is refused over 4 MP (`OcrRefusedError`, reported beside the
 * barcodes) and goes to tesseract as it came only under it.
 */
export async function prepareForOcr(bytes: Uint8Array, header: ImageHeader): Promise<Uint8Array> {
  let grey: Grey | undefined
  try {
    grey = await decodeGrey(bytes, header)
  } catch (e) {
    if (e instanceof OcrRefusedError) throw e
    // What cannot be decoded here (a corrupt stream), tesseract's own decoder may try, if it is small.
    return whole(bytes, header, 'it could not be decoded for reading')
  }
  if (!grey)
    return whole(
      bytes,
      header,
      header.format === 'png'
        ? 'an interlaced or 16-bit PNG is not decoded for reading'
        : `a ${header.format.toUpperCase()} is not decoded for reading`,
    )
  // The PGM carries no EXIF: a phone's "turned a quarter" flag is applied here (tesseract.js applies it to a JPEG it is given).
  const turned = header.format === 'jpeg' ? orient(grey, exifOrientation(bytes)) : grey
  return toPgm(flattenLight(downscale(turned, OCR_MAX_PIXELS)))
}

/** OCR not attempted: the picture has no bounded way to tesseract. Its message says why. */
export class OcrRefusedError extends Error {}

function whole(bytes: Uint8Array, header: ImageHeader, why: string): Uint8Array {
  const mp = (header.width * header.height) / 1e6
  if (header.width * header.height > OCR_MAX_PIXELS)
    throw new OcrRefusedError(
      `Text not read: ${why}, and at ${mp.toFixed(1)} MP it is over the ${OCR_MAX_PIXELS / 1e6} MP OCR reads`,
    )
  return bytes
}

/** The EXIF orientation (1–8) of a JPEG, 1 when it has none: APP1 "Exif", its TIFF IFD0, tag 0x0112. */
export function exifOrientation(b: Uint8Array): number {
  let p = 2
  while (p + 4 <= b.length && b[p] === 0xff) {
    const marker = b[p + 1]!
    const size = (b[p + 2]! << 8) | b[p + 3]!
    if (marker === 0xda) break // the image data: no EXIF after it
    if (marker === 0xe1 && String.fromCharCode(...b.subarray(p + 4, p + 8)) === 'Exif') {
      const t = p + 10
      const little = b[t] === 0x49
      const u16 = (o: number) => (little ? b[o]! | (b[o + 1]! << 8) : (b[o]! << 8) | b[o + 1]!)
      const u32 = (o: number) => (little ? u16(o) + u16(o + 2) * 65536 : u16(o) * 65536 + u16(o + 2))
      const ifd = t + u32(t + 4)
      if (ifd + 2 > b.length) return 1
      for (let i = 0, n = u16(ifd); i < n && ifd + 14 + i * 12 <= b.length; i++) {
        const e = ifd + 2 + i * 12
        if (u16(e) === 0x0112) {
          const v = u16(e + 8)
          return v >= 1 && v <= 8 ? v : 1
        }
      }
      return 1
    }
    p += 2 + size
  }
  return 1
}

/** The picture as EXIF orientation `o` says it is to be seen (2–8: mirrored and/or turned). */
export function orient(g: Grey, o: number): Grey {
  if (o <= 1 || o > 8) return g
  const swap = o >= 5
  const width = swap ? g.height : g.width
  const height = swap ? g.width : g.height
  const data = new Uint8Array(g.data.length)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      // Where output (x, y) comes from in the stored picture, per orientation (TIFF 6.0, tag 274).
      let sx: number
      let sy: number
      switch (o) {
        case 2:
          ;[sx, sy] = [g.width - 1 - x, y]
          break
        case 3:
          ;[sx, sy] = [g.width - 1 - x, g.height - 1 - y]
          break
        case 4:
          ;[sx, sy] = [x, g.height - 1 - y]
          break
        case 5:
          ;[sx, sy] = [y, x]
          break
        case 6:
          ;[sx, sy] = [y, g.height - 1 - x]
          break
        case 7:
          ;[sx, sy] = [g.width - 1 - y, g.height - 1 - x]
          break
        default:
          ;[sx, sy] = [g.width - 1 - y, x]
      }
      data[y * width + x] = g.data[sy * g.width + sx]!
    }
  return { width, height, data }
}

/**
 * Decoded for reading up to this size, with jpeg-js and pngjs (kept libraries; neither decodes in
 * pieces nor at a reduced size): they take 12 to 20 bytes a pixel (jpeg-js's coefficients, the RGBA
 * copy, the grey one), 0.3 GB at 16 MP on a pool thread. A larger photo is refused for text (its
 * barcodes are still read): phones write 12 MP unless told otherwise. Reading larger ones needs a
 * decoder that shrinks while it decodes (libvips through sharp, say), not one written here.
 */
export const OCR_DECODE_MAX_PIXELS = 16_000_000

async function decodeGrey(bytes: Uint8Array, header: ImageHeader): Promise<Grey | undefined> {
  if (header.format !== 'jpeg' && header.format !== 'png') return undefined
  const pixels = header.width * header.height
  if (pixels > OCR_DECODE_MAX_PIXELS)
    throw new OcrRefusedError(
      `Text not read: a photo is read for text up to ${OCR_DECODE_MAX_PIXELS / 1e6} MP, and this one is ${(pixels / 1e6).toFixed(1)} MP (its barcodes are read; a phone's usual 12 MP is enough)`,
    )
  if (header.format === 'png') {
    // IHDR: bit depth at byte 24, interlace method at 28. pngjs inflates an interlaced PNG with no
    // output limit (a few KB of IDAT can inflate to gigabytes), and a 16-bit one to 8 bytes a pixel:
    // those are not decoded here (whole() below: tesseract's own decoder within 4 MP, else refused).
    if (bytes[24]! > 8 || bytes[28] !== 0) return undefined
    const img = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    return fromRgba(img.width, img.height, img.data, 4)
  }
  const img = jpeg.decode(bytes, {
    useTArray: true,
    formatAsRGBA: true,
    // jpeg-js's bounds from the header: it counts 4 bytes a sample for each component's
    // coefficients, 1 for its lines and 4 for the RGBA out, 19 a pixel for an unsubsampled colour
    // JPEG (11.5 for a phone's usual 4:2:0).
    maxResolutionInMP: Math.ceil(pixels / 1e6) + 1,
    maxMemoryUsageInMB: Math.ceil((pixels * 20) / 2 ** 20) + 4,
  })
  return fromRgba(img.width, img.height, img.data, 4)
}

function fromRgba(width: number, height: number, rgba: Uint8Array, stride: number): Grey {
  const data = new Uint8Array(width * height)
  for (let i = 0, p = 0; i < data.length; i++, p += stride)
    // ITU-R BT.601 luma in integers.
    data[i] = (rgba[p]! * 77 + rgba[p + 1]! * 150 + rgba[p + 2]! * 29) >> 8
  return { width, height, data }
}

const BLOCK = 24

/**
 * Uneven light made even: each pixel divided by the paper's brightness around it, the brightest
 * of its 24-px block and the blocks beside it (text strokes are thinner than a block), bilinear
 * between blocks. A label lit from one side had its dark half thresholded into one black patch by
 * tesseract's global (Otsu) threshold and its text lost; flattened, the text is dark on even white.
 */
export function flattenLight(g: Grey): Grey {
  const { width, height } = g
  const bw = Math.ceil(width / BLOCK)
  const bh = Math.ceil(height / BLOCK)
  const max = new Uint8Array(bw * bh)
  for (let y = 0; y < height; y++) {
    const row = y * width
    const blocks = ((y / BLOCK) | 0) * bw
    for (let bx = 0, x = 0; bx < bw; bx++) {
      let m = max[blocks + bx]!
      for (const end = Math.min(width, x + BLOCK); x < end; x++) {
        const v = g.data[row + x]!
        if (v > m) m = v
      }
      max[blocks + bx] = m
    }
  }
  const bg = new Float32Array(bw * bh)
  for (let by = 0; by < bh; by++)
    for (let bx = 0; bx < bw; bx++) {
      let m = 0
      for (let yy = Math.max(0, by - 1); yy <= Math.min(bh - 1, by + 1); yy++)
        for (let xx = Math.max(0, bx - 1); xx <= Math.min(bw - 1, bx + 1); xx++) m = Math.max(m, max[yy * bw + xx]!)
      // 255 / paper: the factor that makes the paper white; a block with no paper is not stretched past 8×.
      bg[by * bw + bx] = 255 / Math.max(m, 32)
    }
  // Each column's two blocks and its weight between them, once.
  const x0s = new Uint32Array(width)
  const x1s = new Uint32Array(width)
  const txs = new Float32Array(width)
  for (let x = 0; x < width; x++) {
    const fx = Math.min(bw - 1, Math.max(0, (x + 0.5) / BLOCK - 0.5))
    x0s[x] = fx | 0
    x1s[x] = Math.min(bw - 1, (fx | 0) + 1)
    txs[x] = fx - (fx | 0)
  }
  const data = new Uint8Array(g.data.length)
  const rowGain = new Float32Array(bw)
  for (let y = 0; y < height; y++) {
    const fy = Math.min(bh - 1, Math.max(0, (y + 0.5) / BLOCK - 0.5))
    const y0 = (fy | 0) * bw
    const y1 = Math.min(bh - 1, (fy | 0) + 1) * bw
    const ty = fy - (fy | 0)
    for (let bx = 0; bx < bw; bx++) rowGain[bx] = bg[y0 + bx]! * (1 - ty) + bg[y1 + bx]! * ty
    const row = y * width
    for (let x = 0; x < width; x++) {
      const tx = txs[x]!
      const gain = rowGain[x0s[x]!]! * (1 - tx) + rowGain[x1s[x]!]! * tx
      const v = g.data[row + x]! * gain
      data[row + x] = v > 255 ? 255 : v + 0.5
    }
  }
  return { width, height, data }
}

/** Binary PGM (P5): a header and the bytes. */
export function toPgm(g: Grey): Uint8Array {
  const head = Buffer.from(`P5\n${g.width} ${g.height}\n255\n`, 'ascii')
  const out = new Uint8Array(head.length + g.data.length)
  out.set(head, 0)
  out.set(g.data, head.length)
  return out
}
