import { readFileSync } from 'node:fs'
import { readImageHeader } from '../../../../src/decode/image/image-header.js'
import { prepareForOcr } from '../../../../src/decode/image/ocr-image.js'

// Run alone (`node --import tsx prepare-in-child.ts <file>`): prepares one picture for OCR and
// prints the page's size and how far the process's peak RSS rose while it did, which a test
// process that has just rendered a 50 MP picture cannot measure of itself (its peak is behind it).
const bytes = readFileSync(process.argv[2]!)
const header = readImageHeader(bytes)
// Warm: the modules and the allocator's first pages are not the picture's cost.
const warm = readFileSync(new URL('../../label/fixtures/label-1-photo.jpg', import.meta.url))
await prepareForOcr(warm, readImageHeader(warm)).catch(() => undefined)
const before = process.resourceUsage().maxRSS
const page = await prepareForOcr(bytes, header)
const growthKb = process.resourceUsage().maxRSS - before
const m = /^P5\n(\d+) (\d+)\n255\n/.exec(Buffer.from(page.subarray(0, 40)).toString('latin1'))
process.stdout.write(
  JSON.stringify({ width: Number(m?.[1] ?? 0), height: Number(m?.[2] ?? 0), growthMb: growthKb / 1024 }),
)
