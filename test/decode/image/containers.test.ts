import { beforeAll, describe, expect, it } from 'vitest'
import {
  ImageDecodeError,
  readBarcodesFromImage,
  UnsupportedImageFormatError,
} from '../../../src/decode/image/index.js'
import { encodeImage } from './support/encode.js'
import type { Raster } from './support/raster.js'
import { labelPhoto } from './support/scene.js'
import { renderSymbol, SYMBOLS } from './support/symbols.js'

// The smallest valid lossy WebP (1×1), as browsers and Android cameras produce.
const WEBP = Buffer.from('UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=', 'base64')
// The first box of an iPhone photo: size, 'ftyp', brand 'heic'.
const HEIC = Uint8Array.from([0, 0, 0, 0x18, ...Buffer.from('ftypheic'), 0, 0, 0, 0, ...Buffer.from('mif1heic')])

describe('readBarcodesFromImage containers', () => {
  let photo: Raster

  beforeAll(async () => {
    photo = labelPhoto({
      width: 800,
      height: 600,
      seed: 5,
      noise: 4,
      placements: [
        { symbol: await renderSymbol(SYMBOLS.upsCode128, 2), at: { x: 0.35, y: 0.3 }, degrees: 2 },
        { symbol: await renderSymbol(SYMBOLS.upsDataMatrix, 3), at: { x: 0.7, y: 0.7 }, degrees: -20 },
      ],
    })
  })

  it.each(['png', 'jpeg', 'gif'] as const)('reads a %s file', async (container) => {
    const found = await readBarcodesFromImage(encodeImage(photo, container))

    expect(found.map((f) => f.text).sort()).toEqual(
      [SYMBOLS.upsCode128.expected.text, SYMBOLS.upsDataMatrix.expected.text].sort(),
    )
  })

  // zxing-wasm decodes with stb_image, which has no WebP or HEIF support; the error says so rather
  // than calling a good photo corrupt.
  it.each([
    ['WebP', WEBP],
    ['HEIC', HEIC],
  ])('refuses %s with a typed error naming the format', async (format, bytes) => {
    const error = await readBarcodesFromImage(new Uint8Array(bytes)).catch((e: unknown) => e)

    expect(error).toBeInstanceOf(UnsupportedImageFormatError)
    expect(error).toBeInstanceOf(ImageDecodeError)
    expect(error).toMatchObject({ format, message: expect.stringContaining(format) })
  })
})
