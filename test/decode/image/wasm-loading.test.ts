import { afterAll, describe, expect, it, vi } from 'vitest'
import { readBarcodesFromImage } from '../../../src/decode/image/index.js'
import { resetZXingReader } from '../../../src/decode/image/zxing-module.js'
import { encodeImage } from './support/encode.js'
import { createRaster } from './support/raster.js'

// Counts instantiations while keeping zxing-wasm's real behaviour.
const prepare = vi.hoisted(() => ({ calls: 0 }))
vi.mock('zxing-wasm/reader', async (importOriginal) => {
  const actual = await importOriginal<typeof import('zxing-wasm/reader')>()
  return {
    ...actual,
    prepareZXingModule: ((...args: Parameters<typeof actual.prepareZXingModule>) => {
      prepare.calls++
      return actual.prepareZXingModule(...args)
    }) as typeof actual.prepareZXingModule,
  }
})

describe('the zxing wasm', () => {
  const fetchSpy = vi.spyOn(globalThis, 'fetch')
  afterAll(() => fetchSpy.mockRestore())

  it('is loaded from the installed package once, never fetched, and shared by concurrent first calls', async () => {
    const blank = encodeImage(createRaster(64, 64), 'png')

    const results = await Promise.all([
      readBarcodesFromImage(blank),
      readBarcodesFromImage(blank),
      readBarcodesFromImage(blank),
    ])
    await readBarcodesFromImage(blank)

    expect(results).toEqual([[], [], []])
    expect(fetchSpy).not.toHaveBeenCalled()
    expect(prepare.calls).toBe(1)
  })

  it('keeps a read in flight on the package wasm when the instance is reset under it', async () => {
    const blank = encodeImage(createRaster(64, 64), 'png')

    const inFlight = readBarcodesFromImage(blank) // now waiting for loadZXingReader to settle
    resetZXingReader()

    await expect(inFlight).resolves.toEqual([])
    await expect(readBarcodesFromImage(blank)).resolves.toEqual([])
    expect(fetchSpy).not.toHaveBeenCalled()
  })
})
