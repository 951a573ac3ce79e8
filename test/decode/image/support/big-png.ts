import { crc32, deflateSync } from 'node:zlib'

/**
 * A large, mostly white 8-bit grayscale PNG with a band of bars: the kind of picture that costs
 * zxing seconds (it scans every row, rotated and inverted) yet deflates to a few hundred KB, as a
 * 50-megapixel phone photo of a plain label can. Built row by row, so tests and the bench can make
 * one of any size without a 200 MB RGBA raster.
 */
export function bigLabelPng(width: number, height: number): Buffer {
  const row = Buffer.alloc(1 + width, 0xff)
  row[0] = 0 // filter: none
  // Bars of varied widths across the middle third, as a sticker would put them.
  for (let x = Math.floor(width / 3), w = 1; x < (2 * width) / 3; x += 2 * w, w = (w % 4) + 1)
    row.fill(0x10, 1 + x, 1 + Math.min(x + w, width))
  const white = Buffer.alloc(1 + width, 0xff)
  white[0] = 0
  const rows: Buffer[] = []
  for (let y = 0; y < height; y++) rows.push(y > height / 3 && y < (2 * height) / 3 ? row : white)
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 0 // grayscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'ascii')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0)
  return Buffer.concat([head, data, crc])
}
