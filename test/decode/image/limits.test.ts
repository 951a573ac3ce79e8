import { describe, expect, it } from 'vitest'
import { readBarcodesFromImage } from '../../../src/decode/image/index.js'
import { encodeImage } from './support/encode.js'
import { labelPhoto } from './support/scene.js'
import { renderSymbol, SYMBOLS, type SymbolSpec } from './support/symbols.js'

// What zxing-wasm 3.1 cannot read, pinned so the documented limits stay true. Each is sharp and
// noise-free: the failure is the geometry, not the picture. Reading these needs the photo deskewed
// before zxing sees it, which needs decoded pixels (a JPEG decoder this package does not have).
// If one starts passing after a zxing-wasm upgrade, move it to the positive tests and update the
// limits in src/decode/image/index.ts.
describe('known limits of the zxing reader', () => {
  async function readAlone(spec: SymbolSpec, moduleSize: number, degrees: number): Promise<string[]> {
    const symbol = await renderSymbol(spec, moduleSize)
    const photo = labelPhoto({
      width: 960,
      height: 640,
      seed: 21,
      placements: [{ symbol, at: { x: 0.5, y: 0.5 }, degrees }],
    })
    return (await readBarcodesFromImage(encodeImage(photo, 'png'))).map((f) => f.text)
  }

  it('misses a MaxiCode that is not alone on a plain page, even upright', async () => {
    expect(await readAlone(SYMBOLS.upsMaxiCode, 4, 0)).toEqual([])
  })

  it('misses a PDF417 tilted 10°', async () => {
    expect(await readAlone(SYMBOLS.fedexPdf417, 4, 10)).toEqual([])
  })

  it('misses a linear code tilted so far that no scan line crosses every bar', async () => {
    expect(await readAlone(SYMBOLS.uspsImpb, 3, 30)).toEqual([])
  })
})
