import { describe, expect, it } from 'vitest'
import { readBarcodesFromImage, type FoundBarcode } from '../../../src/decode/image/index.js'
import { paste } from './support/compose.js'
import { encodeImage } from './support/encode.js'
import { addNoise, seededRandom } from './support/filters.js'
import { createRaster } from './support/raster.js'
import { labelPhoto } from './support/scene.js'
import { renderSymbol, SYMBOLS, type SymbolSpec } from './support/symbols.js'

interface Shot {
  readonly spec: SymbolSpec
  readonly moduleSize: number
  readonly degrees: number
  readonly blur: number
  readonly noise: number
}

// Each symbology as a phone would see it: on a sticker on cardboard, tilted, defocused, noisy, JPEG.
// Tilts stay inside what zxing-cpp reads (see limits.test.ts): 2D matrix codes at any angle, linear
// codes while one scan line still crosses every bar, PDF417 near a multiple of 90°.
const SHOTS: readonly Shot[] = [
  { spec: SYMBOLS.upsCode128, moduleSize: 3, degrees: 5, blur: 1, noise: 6 },
  { spec: SYMBOLS.uspsImpb, moduleSize: 3, degrees: -4, blur: 1, noise: 6 },
  { spec: SYMBOLS.upsDataMatrix, moduleSize: 4, degrees: 33, blur: 1, noise: 8 },
  { spec: SYMBOLS.gs1DataMatrix, moduleSize: 4, degrees: -60, blur: 1, noise: 8 },
  { spec: SYMBOLS.fedexPdf417, moduleSize: 3, degrees: 91, blur: 1, noise: 6 },
  { spec: SYMBOLS.qrCode, moduleSize: 4, degrees: 140, blur: 1, noise: 8 },
  { spec: SYMBOLS.ean13, moduleSize: 3, degrees: 12, blur: 1, noise: 6 },
  { spec: SYMBOLS.code39, moduleSize: 3, degrees: -7, blur: 1, noise: 6 },
  { spec: SYMBOLS.itf14, moduleSize: 3, degrees: 183, blur: 1, noise: 6 },
]

const WIDTH = 960
const HEIGHT = 640
const CENTRE = { x: 0.45, y: 0.55 }

describe('readBarcodesFromImage', () => {
  it.each(SHOTS)('reads $spec.name tilted $degrees° with its exact text', async (shot) => {
    const symbol = await renderSymbol(shot.spec, shot.moduleSize)
    const photo = labelPhoto({
      width: WIDTH,
      height: HEIGHT,
      seed: 1,
      blur: shot.blur,
      noise: shot.noise,
      placements: [{ symbol, at: CENTRE, degrees: shot.degrees }],
    })

    const found = await readBarcodesFromImage(encodeImage(photo, 'jpeg'))

    // Exactly one: the cardboard texture and the sticker's fake print must not read as symbols.
    expect(found).toEqual([{ ...shot.spec.expected, position: expect.any(Object) }])
    expectBoxAround(found[0]!, CENTRE.x * WIDTH, CENTRE.y * HEIGHT, Math.hypot(symbol.width, symbol.height) / 2)
  })

  it('keeps the control characters of an ISO 15434 envelope: RS, GS and the closing EOT', async () => {
    const symbol = await renderSymbol(SYMBOLS.upsDataMatrix, 4)
    const photo = labelPhoto({
      width: WIDTH,
      height: HEIGHT,
      seed: 2,
      placements: [{ symbol, at: CENTRE, degrees: 10 }],
    })

    const [found] = await readBarcodesFromImage(encodeImage(photo, 'png'))

    expect(found?.text.startsWith('[)>\x1e01\x1d96')).toBe(true)
    expect(found?.text.endsWith('\x1e\x04')).toBe(true)
  })

  it('gives GS1 data without the leading FNC1 and with GS after each variable-length field', async () => {
    const symbol = await renderSymbol(SYMBOLS.uspsImpb, 3)
    const photo = labelPhoto({
      width: WIDTH,
      height: HEIGHT,
      seed: 3,
      placements: [{ symbol, at: CENTRE, degrees: 0 }],
    })

    const [found] = await readBarcodesFromImage(encodeImage(photo, 'png'))

    expect(found).toMatchObject({ text: '42010001\x1d9261299990000123456788', isGS1: true, aimId: ']C1' })
  })

  // zxing-cpp reads MaxiCode only from a "pure" image: the symbol upright and alone on a light page,
  // as from a flatbed scan or a crop. limits.test.ts pins down what it cannot do.
  it('reads a UPS MaxiCode from a flat scan', async () => {
    const symbol = await renderSymbol(SYMBOLS.upsMaxiCode, 3)
    const page = createRaster(850, 1100, 240)
    paste(page, symbol, 300, 420)

    const found = await readBarcodesFromImage(encodeImage(addNoise(page, 4, seededRandom(4)), 'jpeg'))

    expect(found).toEqual([{ ...SYMBOLS.upsMaxiCode.expected, position: expect.any(Object) }])
  })
})

function expectBoxAround(found: FoundBarcode, cx: number, cy: number, radius: number): void {
  const { x, y, width, height } = found.position
  expect(Math.hypot(x + width / 2 - cx, y + height / 2 - cy)).toBeLessThan(radius)
  expect(x).toBeGreaterThanOrEqual(0)
  expect(y).toBeGreaterThanOrEqual(0)
  expect(x + width).toBeLessThanOrEqual(WIDTH)
  expect(y + height).toBeLessThanOrEqual(HEIGHT)
}
