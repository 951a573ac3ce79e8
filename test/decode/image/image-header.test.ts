import { describe, expect, it } from 'vitest'
import { ImageDecodeError, UnsupportedImageFormatError } from '../../../src/decode/image/index.js'
import { readImageHeader } from '../../../src/decode/image/image-header.js'
import { encodeImage } from './support/encode.js'
import { createRaster } from './support/raster.js'

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0))

describe('readImageHeader', () => {
  it.each(['png', 'jpeg', 'gif'] as const)('reads the size of a %s', (format) => {
    expect(readImageHeader(encodeImage(createRaster(37, 21), format))).toEqual({ format, width: 37, height: 21 })
  })

  it('finds the JPEG frame header after other segments', () => {
    const jpeg = encodeImage(createRaster(64, 48), 'jpeg')
    const app1 = [0xff, 0xe1, 0x00, 0x08, ...ascii('Exif\0\0')] // EXIF block first, as cameras write
    const withExif = Uint8Array.from([...jpeg.subarray(0, 2), ...app1, ...jpeg.subarray(2)])

    expect(readImageHeader(withExif)).toEqual({ format: 'jpeg', width: 64, height: 48 })
  })

  it.each([
    ['WebP', [...ascii('RIFF'), 0, 0, 0, 0, ...ascii('WEBPVP8 ')]],
    ['HEIC', [0, 0, 0, 0x18, ...ascii('ftypheic')]],
    ['HEIC', [0, 0, 0, 0x18, ...ascii('ftypmif1')]],
    ['AVIF', [0, 0, 0, 0x1c, ...ascii('ftypavif')]],
    ['TIFF', [0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]],
    ['TIFF', [0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]],
  ])('names %s as unsupported', (format, bytes) => {
    expect(() => readImageHeader(Uint8Array.from(bytes))).toThrow(expect.objectContaining({ format }))
    expect(() => readImageHeader(Uint8Array.from(bytes))).toThrow(UnsupportedImageFormatError)
  })

  it.each([
    ['nothing', []],
    ['a BMP', [...ascii('BM'), 0, 0, 0, 0]],
    ['a JPEG with no frame header', [0xff, 0xd8, 0xff, 0xd9, 0, 0, 0, 0, 0, 0, 0]],
    [
      'a PNG declaring a 0×0 canvas',
      [0x89, ...ascii('PNG\r\n\x1a\n'), 0, 0, 0, 13, ...ascii('IHDR'), 0, 0, 0, 0, 0, 0, 0, 0],
    ],
  ])('rejects %s as undecodable', (_, bytes) => {
    const read = (): unknown => readImageHeader(Uint8Array.from(bytes))
    expect(read).toThrow(ImageDecodeError)
    expect(read).not.toThrow(UnsupportedImageFormatError)
  })
})
