import { Readable } from 'node:stream'
import { createInflate } from 'node:zlib'
import { AreaAverage, type Grey } from './area-average.js'

/**
 * The luma of a PNG, area-averaged to at most `maxPixels` while it is inflated, a row at a time:
 * any size, bit depth (16 bits: the high byte), colour type and interlacing, in bounded memory
 * (the averaged picture and two rows). pngjs inflates the whole IDAT at once (an interlaced one
 * with no output limit), then holds the unfiltered picture and its RGBA copy: 9 bytes a pixel for
 * a colour PNG, 18 at 16 bits. Here the inflater is stopped at the bytes the header declares,
 * so a few KB that inflate to gigabytes cost no more than an honest picture. Alpha is ignored.
 *
 * @throws on a corrupt PNG or one whose data ends early
 */
export async function decodePngLuma(b: Uint8Array, maxPixels: number): Promise<Grey> {
  const { ihdr, palette, idat } = readChunks(b)
  const width = u32(ihdr, 0)
  const height = u32(ihdr, 4)
  const [depth, colour, , , interlace] = ihdr.subarray(8, 13)
  const channels = CHANNELS[colour!]
  if (!channels || ![1, 2, 4, 8, 16].includes(depth!) || (channels > 1 && depth! < 8) || (colour === 3 && depth === 16))
    throw new Error(`PNG: bit depth ${depth} with colour type ${colour}`)
  if (colour === 3 && !palette) throw new Error('PNG: palette missing')
  const bitsPerPixel = channels * depth!
  const bpp = Math.max(1, bitsPerPixel >> 3) // filter distance in bytes
  const area = new AreaAverage(width, height, maxPixels)
  const luma = lumaOf(colour!, depth!, palette)
  const passes = interlace ? ADAM7 : [[0, 0, 1, 1]]
  const lumaRow = new Uint8Array(width)

  let pass = -1
  let pw = 0
  let ph = 0
  let row = 0
  let rowBytes = 0
  let prev = new Uint8Array(0)
  let cur = new Uint8Array(0)
  let filled = 0 // bytes of the current row (its filter byte first)
  const nextPass = () => {
    do {
      pass++
      if (pass === passes.length) return
      const [x0, y0, dx, dy] = passes[pass]!
      pw = Math.ceil((width - x0!) / dx!)
      ph = Math.ceil((height - y0!) / dy!)
    } while (pw === 0 || ph === 0)
    rowBytes = Math.ceil((pw * bitsPerPixel) / 8)
    prev = new Uint8Array(rowBytes)
    cur = new Uint8Array(rowBytes + 1)
    row = 0
    filled = 0
  }
  nextPass()

  const inflate = Readable.from(idat).pipe(createInflate({ chunkSize: 64 * 1024 }))
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      for (let i = 0; i < chunk.length && pass < passes.length;) {
        const take = Math.min(chunk.length - i, rowBytes + 1 - filled)
        cur.set(chunk.subarray(i, i + take), filled)
        filled += take
        i += take
        if (filled < rowBytes + 1) break
        unfilter(cur, prev, bpp)
        const [x0, y0, dx, dy] = passes[pass]!
        luma(cur.subarray(1), pw, lumaRow)
        area.addRow(y0! + row * dy!, x0!, dx!, pw, lumaRow)
        prev.set(cur.subarray(1))
        filled = 0
        if (++row === ph) nextPass()
      }
      // Every row the header declares is read: what the stream would inflate beyond is not.
      if (pass === passes.length) break
    }
  } finally {
    inflate.destroy()
  }
  if (pass < passes.length) throw new Error('PNG: image data ends early')
  return area.finish()
}

/** Samples per pixel by colour type (PNG 11.2.2): grey, RGB, palette, grey+alpha, RGBA. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }

/** Adam7: each pass's first column and row, and its steps. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
]

function u32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!
}

function readChunks(b: Uint8Array): { ihdr: Uint8Array; palette?: Uint8Array; idat: Buffer[] } {
  let ihdr: Uint8Array | undefined
  let palette: Uint8Array | undefined
  const idat: Buffer[] = []
  for (let p = 8; p + 8 <= b.length;) {
    const len = u32(b, p)
    const type = String.fromCharCode(...b.subarray(p + 4, p + 8))
    const data = b.subarray(p + 8, p + 8 + len)
    if (data.length < len) throw new Error(`PNG: ${type} cut short`)
    if (type === 'IHDR') ihdr = data
    else if (type === 'PLTE') palette = data
    else if (type === 'IDAT') idat.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength))
    else if (type === 'IEND') break
    p += 12 + len
  }
  if (!ihdr || ihdr.length < 13) throw new Error('PNG: no header')
  if (!idat.length) throw new Error('PNG: no image data')
  return { ihdr, palette, idat }
}

/** PNG's five row filters undone in place (PNG 9.2); `row[0]` is the filter type. */
function unfilter(row: Uint8Array, prev: Uint8Array, bpp: number): void {
  const type = row[0]
  const n = prev.length
  for (let i = 0; i < n; i++) {
    const a = i >= bpp ? row[i + 1 - bpp]! : 0
    const up = prev[i]!
    const c = i >= bpp ? prev[i - bpp]! : 0
    let add: number
    if (type === 0) break
    else if (type === 1) add = a
    else if (type === 2) add = up
    else if (type === 3) add = (a + up) >> 1
    else if (type === 4) {
      const p = a + up - c
      const pa = Math.abs(p - a)
      const pb = Math.abs(p - up)
      const pc = Math.abs(p - c)
      add = pa <= pb && pa <= pc ? a : pb <= pc ? up : c
    } else throw new Error(`PNG: filter type ${type}`)
    row[i + 1] = (row[i + 1]! + add) & 255
  }
}

/** The row's `count` pixels as luma (ITU-R BT.601 in integers, as before), one byte each. */
function lumaOf(
  colour: number,
  depth: number,
  palette: Uint8Array | undefined,
): (row: Uint8Array, count: number, out: Uint8Array) => void {
  const step = depth >> 3 // bytes a sample at 8 and 16 bits: the first (high) byte is used
  const y = (r: number, g: number, b: number) => (r * 77 + g * 150 + b * 29) >> 8
  if (depth < 8) {
    const max = (1 << depth) - 1
    const map = new Uint8Array(max + 1)
    for (let v = 0; v <= max; v++)
      map[v] =
        colour === 3 ? y(palette![3 * v] ?? 0, palette![3 * v + 1] ?? 0, palette![3 * v + 2] ?? 0) : (v * 255) / max
    return (row, count, out) => {
      for (let x = 0; x < count; x++) {
        const bitAt = x * depth
        out[x] = map[(row[bitAt >> 3]! >> (8 - depth - (bitAt & 7))) & max]!
      }
    }
  }
  if (colour === 3)
    return (row, count, out) => {
      for (let x = 0; x < count; x++)
        out[x] = y(palette![3 * row[x]!] ?? 0, palette![3 * row[x]! + 1] ?? 0, palette![3 * row[x]! + 2] ?? 0)
    }
  const px = CHANNELS[colour]! * step
  if (colour === 0 || colour === 4)
    return (row, count, out) => {
      for (let x = 0, p = 0; x < count; x++, p += px) out[x] = row[p]!
    }
  return (row, count, out) => {
    for (let x = 0, p = 0; x < count; x++, p += px) out[x] = y(row[p]!, row[p + step]!, row[p + 2 * step]!)
  }
}
