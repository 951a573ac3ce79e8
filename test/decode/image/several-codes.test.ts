import { beforeAll, describe, expect, it } from 'vitest'
import { readBarcodesFromImage } from '../../../src/decode/image/index.js'
import { encodeImage } from './support/encode.js'
import type { Raster } from './support/raster.js'
import { labelPhoto } from './support/scene.js'
import { renderSymbol, SYMBOLS } from './support/symbols.js'

// A parcel with a carrier label and a few extras, photographed slightly out of focus: the case the
// clerk's camera meets daily. Every symbol must come back, each once, with nothing invented.
const ON_THE_BOX = [
  { spec: SYMBOLS.upsCode128, moduleSize: 3, at: { x: 0.25, y: 0.15 }, degrees: 4 },
  { spec: SYMBOLS.uspsImpb, moduleSize: 3, at: { x: 0.27, y: 0.45 }, degrees: -3 },
  { spec: SYMBOLS.fedexPdf417, moduleSize: 3, at: { x: 0.27, y: 0.78 }, degrees: 1.5 },
  { spec: SYMBOLS.upsDataMatrix, moduleSize: 4, at: { x: 0.75, y: 0.25 }, degrees: 25 },
  { spec: SYMBOLS.qrCode, moduleSize: 4, at: { x: 0.78, y: 0.7 }, degrees: -35 },
] as const

describe('readBarcodesFromImage on a photo holding several symbols', () => {
  let photo: Raster

  beforeAll(async () => {
    const placements = await Promise.all(
      ON_THE_BOX.map(async (p) => ({ symbol: await renderSymbol(p.spec, p.moduleSize), at: p.at, degrees: p.degrees })),
    )
    photo = labelPhoto({ width: 1600, height: 1200, seed: 11, blur: 1, noise: 6, placements })
  })

  it.each(['jpeg', 'png'] as const)('finds every symbol exactly once (%s)', async (container) => {
    const found = await readBarcodesFromImage(encodeImage(photo, container))

    const expected = ON_THE_BOX.map((p) => ({ ...p.spec.expected, position: expect.any(Object) }))
    expect(sortByText(found)).toEqual(sortByText(expected))
  })

  it('places each box where its symbol is', async () => {
    const found = await readBarcodesFromImage(encodeImage(photo, 'png'))

    for (const p of ON_THE_BOX) {
      const box = found.find((f) => f.text === p.spec.expected.text)?.position
      expect(box, p.spec.name).toBeDefined()
      const cx = (box!.x + box!.width / 2) / photo.width
      const cy = (box!.y + box!.height / 2) / photo.height
      expect(Math.abs(cx - p.at.x), p.spec.name).toBeLessThan(0.08)
      expect(Math.abs(cy - p.at.y), p.spec.name).toBeLessThan(0.08)
    }
  })
})

function sortByText<T extends { text: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
}
