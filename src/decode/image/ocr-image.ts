import sharp from 'sharp'
import type { ImageHeader } from './image-header.js'

/**
 * About what a phone's photo of a 4×6 label needs for its text: the SHIP TO lines stay 20 px or
 * more high. Tesseract's time grows with the pixels it is given; a 50 MP photo took it tens of
 * seconds and hundreds of megabytes for nothing more. Barcodes are read from the picture as sent.
 */
export const OCR_MAX_PIXELS = 4_000_000

// libvips is one per process, shared by every decode thread; these two settings are process-wide
// and the same from every thread. One libvips thread per picture: the decode pool's thread count is
// the service's bound on the CPU photos take (sharp's default on glibc, said here so it does not
// depend on MALLOC_ARENA_MAX or jemalloc). No operation cache: each photo is read once, so an entry
// would never be used again and would only hold its pixels (up to 50 MB by default).
sharp.concurrency(1)
sharp.cache(false)

/** A grey picture, one byte a pixel, row by row. */
export interface Grey {
  width: number
  height: number
  data: Uint8Array
}

/**
 * The picture tesseract reads: turned upright as its EXIF orientation says, grey, at most
 * OCR_MAX_PIXELS (shrunk, never enlarged), its lighting flattened (below), as a binary PGM that
 * tesseract's Leptonica reads without a decoder.
 *
 * libvips (through sharp) decodes whatever it can open up to the service's image bound
 * (`maxPixels`, IMAGE_MAX_PIXELS): a JPEG is decoded directly at 1/2, 1/4 or 1/8 of its size
 * (libjpeg's DCT scaling) and other formats are streamed a few rows at a time through the
 * shrink, so a 50 MP photo never exists in memory at full size (26 MB more at the peak for a
 * 50 MP JPEG, 37 MB for a PNG). A progressive JPEG's coefficients and an interlaced PNG's pixels
 * are held whole while they decode (about 160 MB at 50 MP): still bounded by `maxPixels`.
 * What it cannot decode (a corrupt or truncated stream) goes to tesseract as it came only within
 * 4 MP, where tesseract's own decoder may still read it; over that, `OcrRefusedError`, reported
 * beside the barcodes.
 */
export async function prepareForOcr(
  bytes: Uint8Array,
  header: ImageHeader,
  opts: { maxPixels: number },
): Promise<Uint8Array> {
  const pixels = header.width * header.height
  if (pixels > opts.maxPixels)
    throw new OcrRefusedError(
      `Text not read: at ${mp(pixels)} MP the photo is over the ${mp(opts.maxPixels)} MP the service decodes`,
    )
  let grey: Grey
  try {
    grey = await decodeGrey(bytes, opts.maxPixels)
  } catch {
    // What libvips cannot decode, tesseract's own decoder may try, if it is small.
    return whole(bytes, header, 'it could not be decoded for reading')
  }
  return toPgm(flattenLight(grey))
}

/** OCR not attempted: the picture has no bounded way to tesseract. Its message says why. */
export class OcrRefusedError extends Error {}

const mp = (pixels: number) => (pixels / 1e6).toFixed(1)

function whole(bytes: Uint8Array, header: ImageHeader, why: string): Uint8Array {
  const pixels = header.width * header.height
  if (pixels > OCR_MAX_PIXELS)
    throw new OcrRefusedError(
      `Text not read: ${why}, and at ${mp(pixels)} MP it is over the ${OCR_MAX_PIXELS / 1e6} MP OCR reads`,
    )
  return bytes
}

async function decodeGrey(bytes: Uint8Array, maxPixels: number): Promise<Grey> {
  // failOn 'warning', as sharp advises for untrusted input: a stream libjpeg or libpng finds fault
  // with is not decoded here (whole() decides). With 'error', a small JPEG whose frame declared
  // 50 MP was decoded in full, its missing blocks filled in, for 12 s here. limitInputPixels holds
  // libvips to the bound even where the header read before it was fooled.
  const image = sharp(bytes, { limitInputPixels: maxPixels, failOn: 'warning' })
  // The size as seen upright (a photo turned a quarter swaps it), for the box the shrink fits in.
  const { width, height } = (await image.metadata()).autoOrient
  const f = Math.min(1, Math.sqrt(OCR_MAX_PIXELS / (width * height)))
  const { data, info } = await image
    .autoOrient()
    // A transparent pixel's colour means nothing: the paper behind a label drawn on a transparent canvas is white.
    .flatten({ background: '#ffffff' })
    .greyscale()
    .resize({
      width: Math.max(1, Math.floor(width * f)),
      height: Math.max(1, Math.floor(height * f)),
      fit: 'inside',
      withoutEnlargement: true,
    })
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true })
  if (info.channels !== 1) throw new Error(`expected one grey channel, got ${info.channels}`)
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) }
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
