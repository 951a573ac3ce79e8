import { AreaAverage, type Grey } from './area-average.js'
import { decode, extend, readHuffman, receive, resync, type Bits, type Huffman } from './jpeg-huffman.js'

/**
 * The luma of a baseline JPEG (ITU T.81, Huffman, 8-bit), area-averaged to at most `maxPixels`
 * while it is decoded, one MCU row at a time: what tesseract needs, in bounded memory whatever the
 * photo's size. jpeg-js keeps every coefficient of every component as its own Int32Array before
 * the first pixel comes out (about 14 bytes a pixel with its RGBA copy: 0.7 GB for 50 MP).
 *
 * Only the first component (Y, or the grey of a one-component JPEG) is transformed; the chroma
 * blocks are Huffman-decoded to move on and dropped. A picture at least twice the bound is
 * transformed at 1/2, 1/4 or 1/8 of its size from the block's low frequencies (libjpeg's DCT
 * scaling), which the averaging would have thrown away anyway.
 *
 * Returns undefined for what this does not read (progressive, arithmetic-coded, 12-bit, Adobe RGB
 * or CMYK): the caller decides. Throws on a corrupt stream.
 */
export function decodeJpegLuma(b: Uint8Array, maxPixels: number): Grey | undefined {
  const quant: Int32Array[] = []
  const dcTables: Huffman[] = []
  const acTables: Huffman[] = []
  let frame: Frame | undefined
  let restart = 0
  let adobeRgb = false
  let p = 2
  for (;;) {
    if (p + 4 > b.length) throw new Error('JPEG: no scan')
    if (b[p] !== 0xff) throw new Error('JPEG: marker expected')
    const marker = b[p + 1]!
    if (marker === 0xff) {
      p++
      continue
    }
    const len = (b[p + 2]! << 8) | b[p + 3]!
    const seg = b.subarray(p + 4, p + 2 + len)
    p += 2 + len
    if (marker === 0xdb) readQuant(seg, quant)
    else if (marker === 0xc4) readHuffman(seg, dcTables, acTables)
    else if (marker === 0xdd) restart = (seg[0]! << 8) | seg[1]!
    // Adobe's transform flag 0: three components are RGB, not YCbCr (the first is red, not luma).
    else if (marker === 0xee && String.fromCharCode(...seg.subarray(0, 5)) === 'Adobe') adobeRgb = seg[11] === 0
    else if (marker === 0xc0 || marker === 0xc1) frame = readFrame(seg)
    else if (marker >= 0xc2 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return undefined
    else if (marker === 0xda) {
      if (!frame || frame.comps.length === 2 || frame.comps.length > 3 || (adobeRgb && frame.comps.length === 3))
        return undefined
      const scan = readScan(seg, frame, dcTables, acTables)
      // A non-interleaved first scan (one component) is not how baseline photos come: leave it.
      if (scan.length !== frame.comps.length || scan[0]!.comp !== frame.comps[0]) return undefined
      return decodeScan(b, p, frame, scan, quant, restart, maxPixels)
    }
  }
}

interface Comp {
  id: number
  h: number
  v: number
  q: number
}
interface Frame {
  width: number
  height: number
  comps: Comp[]
  maxH: number
  maxV: number
}
interface ScanComp {
  comp: Comp
  dc: Huffman
  ac: Huffman
  pred: number
}
const ZIGZAG = Uint8Array.from([
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47,
  55, 62, 63,
])

function readQuant(seg: Uint8Array, quant: Int32Array[]): void {
  for (let i = 0; i < seg.length;) {
    const wide = seg[i]! >> 4
    const table = new Int32Array(64)
    for (let k = 0; k < 64; k++)
      table[ZIGZAG[k]!] = wide ? (seg[i + 1 + 2 * k]! << 8) | seg[i + 2 + 2 * k]! : seg[i + 1 + k]!
    quant[seg[i]! & 15] = table
    i += 1 + (wide ? 128 : 64)
  }
}

function readFrame(seg: Uint8Array): Frame | undefined {
  if (seg[0] !== 8) return undefined
  const comps: Comp[] = []
  for (let i = 0; i < seg[5]!; i++) {
    const c = seg.subarray(6 + 3 * i)
    comps.push({ id: c[0]!, h: c[1]! >> 4, v: c[1]! & 15, q: c[2]! })
  }
  // A one-component scan's MCU is one block, whatever sampling factors the frame declares (T.81 A.2.2).
  if (comps.length === 1) comps[0]!.h = comps[0]!.v = 1
  const maxH = Math.max(...comps.map((c) => c.h))
  const maxV = Math.max(...comps.map((c) => c.v))
  // The luma is read at full size: a first component sampled below the others is not a photo's.
  if (comps[0]!.h !== maxH || comps[0]!.v !== maxV) return undefined
  return { height: (seg[1]! << 8) | seg[2]!, width: (seg[3]! << 8) | seg[4]!, comps, maxH, maxV }
}

function readScan(seg: Uint8Array, frame: Frame, dc: Huffman[], ac: Huffman[]): ScanComp[] {
  const out: ScanComp[] = []
  for (let i = 0; i < seg[0]!; i++) {
    const comp = frame.comps.find((c) => c.id === seg[1 + 2 * i])
    const d = dc[seg[2 + 2 * i]! >> 4]
    const a = ac[seg[2 + 2 * i]! & 15]
    if (!comp || !d || !a) throw new Error('JPEG: scan names a missing component or table')
    out.push({ comp, dc: d, ac: a, pred: 0 })
  }
  return out
}

/** The N-point inverse DCT's basis (N = 8, 4, 2 or 1): row x, frequency u, C(u)/2 · cos((2x+1)uπ/2N). */
function basis(n: number): Float64Array {
  const m = new Float64Array(n * 8)
  for (let x = 0; x < n; x++)
    for (let u = 0; u < n; u++)
      m[x * 8 + u] = ((u ? 1 : Math.SQRT1_2) / 2) * Math.cos(((2 * x + 1) * u * Math.PI) / (2 * n))
  return m
}

function decodeScan(
  b: Uint8Array,
  start: number,
  frame: Frame,
  scan: ScanComp[],
  quant: Int32Array[],
  restart: number,
  maxPixels: number,
): Grey {
  const { width, height, maxH, maxV } = frame
  // Transformed at 1/s of its size (s a power of two ≤ 8) while that stays over the bound.
  let s = 1
  while (s < 8 && (width / (2 * s)) * (height / (2 * s)) >= maxPixels) s *= 2
  const n = 8 / s
  const w = Math.ceil(width / s)
  const h = Math.ceil(height / s)
  const area = new AreaAverage(w, h, maxPixels)
  const m = basis(n)
  const q = quant[scan[0]!.comp.q]
  if (!q) throw new Error('JPEG: missing quantisation table')
  const mcusX = Math.ceil(width / (8 * maxH))
  const mcusY = Math.ceil(height / (8 * maxV))
  // One MCU row of the luma, at 1/s.
  const stripW = mcusX * maxH * n
  const strip = new Uint8Array(stripW * maxV * n)
  const zz = new Int32Array(64)
  const tmp = new Float64Array(64)
  const bits = { p: start, acc: 0, n: 0 }
  let mcu = 0
  for (let my = 0; my < mcusY; my++) {
    for (let mx = 0; mx < mcusX; mx++, mcu++) {
      if (restart && mcu > 0 && mcu % restart === 0) {
        resync(b, bits)
        for (const c of scan) c.pred = 0
      }
      for (let ci = 0; ci < scan.length; ci++) {
        const c = scan[ci]!
        for (let by = 0; by < c.comp.v; by++)
          for (let bx = 0; bx < c.comp.h; bx++) {
            decodeBlock(b, bits, c, zz)
            if (ci === 0) idct(zz, q, m, n, tmp, strip, stripW, (mx * maxH + bx) * n, by * n)
          }
      }
    }
    const y0 = my * maxV * n
    for (let r = 0; r < maxV * n && y0 + r < h; r++) area.addRow(y0 + r, 0, 1, w, strip, r * stripW)
  }
  return area.finish()
}

/** One block's 64 coefficients (zig-zag order, not yet dequantised) into `zz`. */
function decodeBlock(b: Uint8Array, bits: Bits, c: ScanComp, zz: Int32Array): void {
  zz.fill(0)
  const t = decode(b, bits, c.dc)
  c.pred += t ? extend(receive(b, bits, t), t) : 0
  zz[0] = c.pred
  for (let k = 1; k < 64;) {
    const rs = decode(b, bits, c.ac)
    const r = rs >> 4
    const sz = rs & 15
    if (!sz) {
      if (r !== 15) break
      k += 16
      continue
    }
    k += r
    if (k > 63) throw new Error('JPEG: coefficient past the block')
    zz[k++] = extend(receive(b, bits, sz), sz)
  }
}

/** Dequantised, inverse-transformed to N×N and written into the strip at (x0, y0). */
function idct(
  zz: Int32Array,
  q: Int32Array,
  m: Float64Array,
  n: number,
  tmp: Float64Array,
  out: Uint8Array,
  stride: number,
  x0: number,
  y0: number,
): void {
  // Columns first: tmp[y][u] = Σ_v m[y][v] F(u, v), the low N×N frequencies only.
  for (let u = 0; u < n; u++)
    for (let y = 0; y < n; y++) {
      let sum = 0
      for (let v = 0; v < n; v++) {
        const k = v * 8 + u
        const f = zz[INVERSE_ZIGZAG[k]!]!
        if (f) sum += m[y * 8 + v]! * f * q[k]!
      }
      tmp[y * 8 + u] = sum
    }
  for (let y = 0; y < n; y++)
    for (let x = 0; x < n; x++) {
      let sum = 128
      for (let u = 0; u < n; u++) sum += m[x * 8 + u]! * tmp[y * 8 + u]!
      out[(y0 + y) * stride + x0 + x] = sum < 0 ? 0 : sum > 255 ? 255 : sum + 0.5
    }
}

const INVERSE_ZIGZAG = (() => {
  const inv = new Uint8Array(64)
  for (let k = 0; k < 64; k++) inv[ZIGZAG[k]!] = k
  return inv
})()
