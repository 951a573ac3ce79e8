import bwipjs from 'bwip-js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../support/console-session.js'
import { DESKTOP, signIn, useConsole } from './support.js'

// The camera path of Receive end to end: Chromium's fake camera plays a label (a Code 128 drawn
// into a Y4M video), getUserMedia hands its frames to zxing-wasm served by us, and the decoded
// number goes through the decode API like a typed scan.

const NUMBER = '1Z999AA10123456784'
const dir = mkdtempSync(path.join(tmpdir(), 'mailroom-camera-'))
const video = path.join(dir, 'label.y4m')

/** A PNG as a still Y4M video (4:2:0, grey: the chroma planes are flat), what --use-file-for-fake-video-capture plays. */
function y4m(png: Buffer): Buffer {
  const image = PNG.sync.read(png)
  const width = 640
  const height = 480
  const luma = Buffer.alloc(width * height, 255)
  const left = Math.floor((width - image.width) / 2)
  const top = Math.floor((height - image.height) / 2)
  for (let y = 0; y < image.height; y++)
    for (let x = 0; x < image.width; x++) {
      const i = (y * image.width + x) * 4
      const alpha = image.data[i + 3]! / 255
      luma[(top + y) * width + left + x] = Math.round(image.data[i]! * alpha + 255 * (1 - alpha))
    }
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128)
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma])
  return Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`), frame, frame])
}

const h = useConsole({}, () => [
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  `--use-file-for-fake-video-capture=${video}`,
])
const clerk = { email: 'camera@desk.example', password: 'camera password 1' }

beforeAll(async () => {
  const png = await bwipjs.toBuffer({ bcid: 'code128', text: NUMBER, scale: 3, height: 15 })
  writeFileSync(video, y4m(png))
  await createUser(h.t, await h.t.newClient('camera-desk'), { ...clerk, role: 'clerk' })
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('camera scanning', () => {
  it('"Scan with camera" reads the label from the camera and shows its decode', async () => {
    const { context, page } = await h.open(DESKTOP)
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/receive')
    await page.getByRole('button', { name: 'Scan with camera' }).click()
    await page.getByTestId('decoded-tracking').waitFor({ timeout: 20_000 })
    expect(await page.getByTestId('decoded-tracking').textContent()).toBe(NUMBER)
    expect(await page.getByText('UPS', { exact: true }).count()).toBe(1)
    // The camera is released once the label is read.
    await page.getByRole('button', { name: 'Scan with camera' }).waitFor()
    expect(h.elsewhere).toEqual([])
    expect(h.pageErrors).toEqual([])
    await context.close()
  })
})
