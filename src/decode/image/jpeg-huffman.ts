/** Huffman decoding of a JPEG's entropy-coded data (ITU T.81 F.2.2), a bit at a time. */

/** Canonical Huffman: per code length, the largest code, and where its values start. */
export interface Huffman {
  maxCode: Int32Array
  valPtr: Int32Array
  minCode: Int32Array
  values: Uint8Array
}

/** A DHT segment's tables, by class (DC, AC) and id. */
export function readHuffman(seg: Uint8Array, dc: Huffman[], ac: Huffman[]): void {
  for (let i = 0; i < seg.length;) {
    const cls = seg[i]! >> 4
    const id = seg[i]! & 15
    const counts = seg.subarray(i + 1, i + 17)
    const total = counts.reduce((a, c) => a + c, 0)
    const values = seg.slice(i + 17, i + 17 + total)
    const h: Huffman = {
      maxCode: new Int32Array(18).fill(-1),
      valPtr: new Int32Array(17),
      minCode: new Int32Array(17),
      values,
    }
    for (let len = 1, code = 0, k = 0; len <= 16; len++, code <<= 1) {
      h.valPtr[len] = k
      h.minCode[len] = code
      code += counts[len - 1]!
      k += counts[len - 1]!
      h.maxCode[len] = counts[len - 1] ? code - 1 : -1
    }
    ;(cls ? ac : dc)[id] = h
    i += 17 + total
  }
}

export interface Bits {
  p: number
  acc: number
  n: number
}

function bit(b: Uint8Array, s: Bits): number {
  if (s.n === 0) {
    if (s.p >= b.length) throw new Error('JPEG: data ends inside the scan')
    const byte = b[s.p++]!
    if (byte === 0xff) {
      const next = b[s.p]
      if (next === 0) s.p++
      else throw new Error('JPEG: marker inside the scan')
    }
    s.acc = byte
    s.n = 8
  }
  s.n--
  return (s.acc >> s.n) & 1
}

export function receive(b: Uint8Array, s: Bits, len: number): number {
  let v = 0
  for (let i = 0; i < len; i++) v = (v << 1) | bit(b, s)
  return v
}

export function extend(v: number, t: number): number {
  return v < 1 << (t - 1) ? v - (1 << t) + 1 : v
}

export function decode(b: Uint8Array, s: Bits, h: Huffman): number {
  let code = 0
  for (let len = 1; len <= 16; len++) {
    code = (code << 1) | bit(b, s)
    if (code <= h.maxCode[len]!) return h.values[h.valPtr[len]! + code - h.minCode[len]!]!
  }
  throw new Error('JPEG: bad Huffman code')
}

/** At a restart interval: the rest of the byte dropped, the RSTn marker skipped. */
export function resync(b: Uint8Array, s: Bits): void {
  s.n = 0
  while (s.p + 1 < b.length && !(b[s.p] === 0xff && b[s.p + 1]! >= 0xd0 && b[s.p + 1]! <= 0xd7)) s.p++
  s.p += 2
}
