import { crc32, deflateSync } from 'node:zlib'
import type { Raster } from './raster.js'

/** A PNG from its IHDR fields and the bytes its IDAT inflates to. */
export function png(
  width: number,
  height: number,
  bitDepth: number,
  colourType: number,
  interlace: number,
  raw: Buffer,
): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4)
    len.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([len, body, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([bitDepth, colourType, 0, 0, interlace], 8)
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(raw, { level: 6 })),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  )
}

const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const

/**
 * The raster as a 16-bit grey, Adam7-interlaced PNG (each sample v as v·257), every row filtered
 * with Paeth, then Sub, Up, Average in turn: the PNG a scanner's "archive" setting writes, and
 * the one pngjs could not decode in bounded memory.
 */
export function interlaced16(r: Raster): Uint8Array {
  const parts: Buffer[] = []
  for (const [x0, y0, dx, dy] of ADAM7) {
    const pw = Math.ceil((r.width - x0) / dx)
    const ph = Math.ceil((r.height - y0) / dy)
    if (!pw || !ph) continue
    let prev = Buffer.alloc(pw * 2)
    for (let row = 0; row < ph; row++) {
      const line = Buffer.alloc(pw * 2)
      for (let i = 0; i < pw; i++) line.writeUInt16BE(r.data[(y0 + row * dy) * r.width + x0 + i * dx]! * 257, 2 * i)
      const type = [4, 1, 2, 3][row % 4]!
      const out = Buffer.alloc(1 + pw * 2)
      out[0] = type
      for (let i = 0; i < line.length; i++) {
        const a = i >= 2 ? line[i - 2]! : 0
        const b = prev[i]!
        const c = i >= 2 ? prev[i - 2]! : 0
        const p = a + b - c
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)]
        const pred =
          type === 1 ? a : type === 2 ? b : type === 3 ? (a + b) >> 1 : pa <= pb && pa <= pc ? a : pb <= pc ? b : c
        out[1 + i] = (line[i]! - pred) & 255
      }
      parts.push(out)
      prev = line
    }
  }
  return png(r.width, r.height, 16, 0, 1, Buffer.concat(parts))
}
