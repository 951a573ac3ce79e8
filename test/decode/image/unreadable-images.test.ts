import { crc32, deflateSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { ImageDecodeError, readBarcodesFromImage } from '../../../src/decode/image/index.js'
import { encodeImage } from './support/encode.js'
import { seededRandom } from './support/filters.js'
import { labelPhoto } from './support/scene.js'

describe('readBarcodesFromImage on pictures it cannot read', () => {
  const random = seededRandom(9)

  it.each([
    ['empty bytes', new Uint8Array(0)],
    ['random bytes', Uint8Array.from({ length: 4096 }, () => Math.floor(random() * 256))],
    ['text', new TextEncoder().encode('1Z999AA10123456784')],
    ['a PNG signature and nothing else', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    [
      'a JPEG start marker and garbage',
      Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
    ],
  ])('rejects %s with ImageDecodeError', async (_, bytes) => {
    await expect(readBarcodesFromImage(bytes)).rejects.toBeInstanceOf(ImageDecodeError)
  })

  it('rejects a PNG cut short in its pixel data', async () => {
    const png = encodeImage(labelPhoto({ width: 320, height: 240, seed: 1, placements: [] }), 'png')

    await expect(readBarcodesFromImage(png.subarray(0, png.length / 2))).rejects.toBeInstanceOf(ImageDecodeError)
  })

  it('rejects a small file that declares a huge canvas, before decoding it', async () => {
    // 30000×30000 zero pixels deflate to under 1 MB; decoding them held the event loop for 15 s.
    // Its pixel data is empty: a decoder that started on it would fail as a PNG cut short (the test
    // above), so "too large" shows the size was checked first, with no clock in the test.
    const bomb = pngWithSize(30_000, 30_000)

    await expect(readBarcodesFromImage(bomb)).rejects.toThrow(/too large/)
  })

  it('returns [] for a photo with no barcode in it', async () => {
    const photo = labelPhoto({ width: 960, height: 640, seed: 8, blur: 1, noise: 8, placements: [] })

    await expect(readBarcodesFromImage(encodeImage(photo, 'jpeg'))).resolves.toEqual([])
  })
})

/** A valid greyscale PNG header with one empty IDAT: enough for a reader to learn the size. */
function pngWithSize(width: number, height: number): Uint8Array {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([length, body, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth; colour type 0 (grey), default compression, filter, no interlace
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return new Uint8Array(
    Buffer.concat([
      signature,
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(Buffer.alloc(0))),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  )
}
