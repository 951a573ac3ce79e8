import type { Raster } from './raster.js'

/**
 * A minimal baseline JPEG encoder for greyscale (ITU T.81, one component, standard Huffman tables).
 * Phone photos reach the service as JPEG, so tests must feed the reader real DCT blocking and
 * ringing around bar edges; nothing installed encodes JPEG, and this is short.
 */
export function encodeJpeg(r: Raster, quality = 75): Uint8Array {
  const quant = scaledQuantTable(quality)
  const out = new ByteWriter()
  out.bytes([0xff, 0xd8]) // SOI
  out.segment(0xdb, [0x00, ...ZIGZAG.map((i) => quant[i]!)]) // DQT, table 0, 8-bit, zigzag order
  out.segment(0xc0, [8, r.height >> 8, r.height & 255, r.width >> 8, r.width & 255, 1, 1, 0x11, 0])
  out.segment(0xc4, [0x00, ...DC_BITS, ...DC_VALUES]) // DHT class 0 (DC), id 0
  out.segment(0xc4, [0x10, ...AC_BITS, ...AC_VALUES]) // DHT class 1 (AC), id 0
  out.segment(0xda, [1, 1, 0x00, 0, 63, 0]) // SOS: one component, tables 0/0, full spectrum
  const bits = new BitWriter(out)
  const dc = huffmanCodes(DC_BITS, DC_VALUES)
  const ac = huffmanCodes(AC_BITS, AC_VALUES)
  const block = new Float64Array(64)
  let previousDc = 0
  for (let by = 0; by < r.height; by += 8) {
    for (let bx = 0; bx < r.width; bx += 8) {
      for (let y = 0; y < 8; y++) {
        for (let x = 0; x < 8; x++) {
          // Edge blocks repeat the last row/column, as libjpeg does, to avoid ringing at the border.
          const sx = Math.min(bx + x, r.width - 1)
          const sy = Math.min(by + y, r.height - 1)
          block[y * 8 + x] = r.data[sy * r.width + sx]! - 128
        }
      }
      const coefficients = forwardDct(block).map((v, i) => Math.round(v / quant[i]!))
      const zz = ZIGZAG.map((i) => coefficients[i]!)
      previousDc = encodeBlock(bits, zz, previousDc, dc, ac)
    }
  }
  bits.flush()
  out.bytes([0xff, 0xd9]) // EOI
  return out.result()
}

function encodeBlock(bits: BitWriter, zz: number[], previousDc: number, dc: Code[], ac: Code[]): number {
  const dcValue = zz[0]!
  writeValue(bits, dc, 0, dcValue - previousDc)
  let run = 0
  for (let k = 1; k < 64; k++) {
    const v = zz[k]!
    if (v === 0) {
      run++
      continue
    }
    while (run > 15) {
      bits.write(ac[0xf0]!) // ZRL: sixteen zeros
      run -= 16
    }
    writeValue(bits, ac, run << 4, v)
    run = 0
  }
  if (run > 0) bits.write(ac[0x00]!) // EOB
  return dcValue
}

/** Category (bit length) symbol, then the value in that many bits, negatives one's-complemented (F.1.2.1). */
function writeValue(bits: BitWriter, table: Code[], symbolBase: number, value: number): void {
  const size = value === 0 ? 0 : Math.floor(Math.log2(Math.abs(value))) + 1
  bits.write(table[symbolBase | size]!)
  if (size > 0) bits.write({ code: value > 0 ? value : value + (1 << size) - 1, length: size })
}

const COS = Array.from({ length: 64 }, (_, i) => Math.cos(((2 * (i % 8) + 1) * Math.floor(i / 8) * Math.PI) / 16))

/** Textbook separable 8×8 DCT-II (A.3.3); speed does not matter for test fixtures. */
function forwardDct(block: Float64Array): number[] {
  const out = new Array<number>(64)
  for (let v = 0; v < 8; v++) {
    for (let u = 0; u < 8; u++) {
      let sum = 0
      for (let y = 0; y < 8; y++) {
        for (let x = 0; x < 8; x++) sum += block[y * 8 + x]! * COS[u * 8 + x]! * COS[v * 8 + y]!
      }
      const cu = u === 0 ? Math.SQRT1_2 : 1
      const cv = v === 0 ? Math.SQRT1_2 : 1
      out[v * 8 + u] = (cu * cv * sum) / 4
    }
  }
  return out
}

/** IJG quality scaling of the Annex K luminance table. */
function scaledQuantTable(quality: number): number[] {
  const q = Math.min(100, Math.max(1, quality))
  const s = q < 50 ? 5000 / q : 200 - 2 * q
  return LUMINANCE.map((base) => Math.min(255, Math.max(1, Math.floor((base * s + 50) / 100))))
}

interface Code {
  code: number
  length: number
}

/** Canonical Huffman codes from the BITS/HUFFVAL lists (C.2), indexed by symbol. */
function huffmanCodes(counts: readonly number[], values: readonly number[]): Code[] {
  const table: Code[] = []
  let code = 0
  let k = 0
  counts.forEach((count, i) => {
    for (let j = 0; j < count; j++) table[values[k++]!] = { code: code++, length: i + 1 }
    code <<= 1
  })
  return table
}

class ByteWriter {
  private readonly chunks: number[] = []
  bytes(values: readonly number[]): void {
    for (const v of values) this.chunks.push(v)
  }
  byte(v: number): void {
    this.chunks.push(v)
  }
  segment(marker: number, payload: readonly number[]): void {
    const length = payload.length + 2
    this.bytes([0xff, marker, length >> 8, length & 255, ...payload])
  }
  result(): Uint8Array {
    return Uint8Array.from(this.chunks)
  }
}

class BitWriter {
  private buffer = 0
  private count = 0
  constructor(private readonly out: ByteWriter) {}
  write({ code, length }: Code): void {
    for (let i = length - 1; i >= 0; i--) {
      this.buffer = (this.buffer << 1) | ((code >> i) & 1)
      if (++this.count === 8) this.emit()
    }
  }
  /** Pads the last byte with ones (F.1.2.3). */
  flush(): void {
    while (this.count !== 0) this.write({ code: 1, length: 1 })
  }
  private emit(): void {
    this.out.byte(this.buffer)
    if (this.buffer === 0xff) this.out.byte(0x00) // byte stuffing (F.1.2.3)
    this.buffer = 0
    this.count = 0
  }
}

const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47,
  55, 62, 63,
]

// ITU T.81 Annex K: table K.1 (luminance quantisation), K.3 (DC) and K.5 (AC) luminance Huffman tables.
const LUMINANCE = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51,
  87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101,
  72, 92, 95, 98, 112, 100, 103, 99,
]
const DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
const DC_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
const AC_BITS = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d]
const AC_VALUES = [
  0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14,
  0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09,
  0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a,
  0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65,
  0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88,
  0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9,
  0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca,
  0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea,
  0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
]
