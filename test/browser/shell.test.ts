import bwipjs from 'bwip-js'
import { describe, expect, it } from 'vitest'
import { DESKTOP, TABLET, expectAccessible, screenshot, useConsole } from './support.js'

// The console's page in a real browser before anyone signs in: it loads from this server only,
// runs without an error, and its sign-in screen is accessible at both sizes.
const h = useConsole()

describe('the console in Chromium', () => {
  it('loads at an app path, asks to sign in, and fetches nothing from another host', async () => {
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['tablet', TABLET],
    ] as const) {
      const { context, page } = await h.open(viewport)
      await page.goto('/console/packages/PKG0000000000')
      await page.getByRole('button', { name: 'Sign in' }).waitFor()
      expect(await page.getByRole('heading', { name: 'Sign in to mailroom' }).isVisible()).toBe(true)
      expect(await page.getByLabel('Email').evaluate((e) => e === e.ownerDocument.activeElement)).toBe(true)
      await expectAccessible(page, `sign in (${size})`)
      await screenshot(page, `sign-in-${size}`)
      await context.close()
    }
    expect(h.elsewhere).toEqual([])
    expect(h.pageErrors).toEqual([])
  })

  it('loads the camera scanner (zxing-wasm and its .wasm from this server) and decodes the barcode of a label', async () => {
    const { context, page } = await h.open()
    await page.goto('/console')
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    const png = await bwipjs.toBuffer({ bcid: 'code128', text: '1Z999AA10123456784', scale: 3, height: 12 })
    // The camera module of the Receive screen, fed a frame with a label instead of a video.
    const text = await page.evaluate(`(async () => {
      const { decodeImageData } = await import('/console/camera.js')
      const img = new Image()
      img.src = 'data:image/png;base64,${png.toString('base64')}'
      await img.decode()
      const canvas = document.createElement('canvas')
      canvas.width = img.width + 40
      canvas.height = img.height + 40
      const g = canvas.getContext('2d')
      g.fillStyle = '#fff'
      g.fillRect(0, 0, canvas.width, canvas.height)
      g.drawImage(img, 20, 20)
      return decodeImageData(g.getImageData(0, 0, canvas.width, canvas.height))
    })()`)
    expect(text).toBe('1Z999AA10123456784')
    await context.close()
    expect(h.elsewhere).toEqual([])
  })
})
