import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { findShipTo } from '../../../src/decode/index.js'
import { ocrThread, readLabelText } from '../../../src/decode/image/ocr.js'

// An exception nothing caught in tesseract.js's own thread (issue 27 review): it fails the OCR
// only; the thread that asked for the text (a decode thread, its barcodes read) lives on.

const FIXTURES = new URL('../label/fixtures/', import.meta.url)
const manifest = JSON.parse(readFileSync(new URL('manifest.json', FIXTURES), 'utf8')) as Record<
  string,
  { printedName: string }
>
const [file, entry] = Object.entries(manifest).find(([f]) => f.endsWith('-clean.png'))!
const label = new Uint8Array(readFileSync(new URL(file, FIXTURES)))

describe('the OCR thread failing', () => {
  it('does not take down the thread that asked; the next label starts a fresh engine and is read', async () => {
    await readLabelText(label)
    const thread = (await ocrThread())!
    expect(thread).toBeDefined()
    // A message tesseract.js's thread cannot take: it throws outside any try, an uncaught exception there.
    const gone = new Promise((resolve) => thread.once('exit', resolve))
    thread.postMessage(null)
    await gone
    const again = await readLabelText(label)
    expect(findShipTo(again.lines)?.nameLine?.toUpperCase()).toBe(entry.printedName.toUpperCase())
  }, 120_000)
})
