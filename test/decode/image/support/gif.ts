import type { Raster } from './raster.js'

/**
 * A minimal GIF89a encoder: 256-grey global palette, one frame. The LZW stream sends every pixel as
 * a literal and a clear code every 250 pixels, so the decoder's table never grows past 9-bit codes
 * (GIF89a appendix F). Files come out large, which a fixture does not mind.
 */
export function encodeGif(r: Raster): Uint8Array {
  const out: number[] = []
  const u16 = (v: number): void => void out.push(v & 255, v >> 8)
  out.push(...[...'GIF89a'].map((c) => c.charCodeAt(0)))
  u16(r.width)
  u16(r.height)
  out.push(0xf7, 0, 0) // global colour table, 8 bits per primary, 256 entries; background 0; square pixels
  for (let i = 0; i < 256; i++) out.push(i, i, i)
  out.push(0x2c) // image descriptor
  u16(0)
  u16(0)
  u16(r.width)
  u16(r.height)
  out.push(0) // no local table, not interlaced
  out.push(8) // LZW minimum code size
  const lzw = literalLzw(r.data)
  for (let i = 0; i < lzw.length; i += 255) {
    const block = lzw.subarray(i, i + 255)
    out.push(block.length, ...block)
  }
  out.push(0, 0x3b) // block terminator, trailer
  return Uint8Array.from(out)
}

function literalLzw(pixels: Uint8Array): Uint8Array {
  const CLEAR = 256
  const END = 257
  const bytes: number[] = []
  let buffer = 0
  let count = 0
  const put = (code: number): void => {
    buffer |= code << count // GIF packs codes least significant bit first
    count += 9
    while (count >= 8) {
      bytes.push(buffer & 255)
      buffer >>= 8
      count -= 8
    }
  }
  pixels.forEach((p, i) => {
    if (i % 250 === 0) put(CLEAR)
    put(p)
  })
  put(END)
  if (count > 0) bytes.push(buffer & 255)
  return Uint8Array.from(bytes)
}
