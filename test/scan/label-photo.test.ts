import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { api } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

// Reading text takes seconds on a busy machine, the first read loading the model too.
const OCR_TIMEOUT = 120_000

// decode-image with read=text (issue 27): the label's printed recipient, matched in the directory.
// The photo is one the bench's generator rendered (bench/render-label-fixtures.ts).

const DECODE_IMAGE = '/api/v1/packages/tracking/decode-image'
const FIXTURES = new URL('../decode/label/fixtures/', import.meta.url)
type Entry = { printedName: string; person: { first: string; last: string; middle?: string; unit?: string } }
const manifest = JSON.parse(readFileSync(new URL('manifest.json', FIXTURES), 'utf8')) as Record<string, Entry>
const [photoFile, entry] = Object.entries(manifest).find(([f]) => f.endsWith('-photo.jpg'))!
const photo = `data:image/jpeg;base64,${readFileSync(new URL(photoFile, FIXTURES)).toString('base64')}`

const t = useTestApp({ IMAGE_DECODE_THREADS: '1', IMAGE_DECODE_TIMEOUT_MS: '120000' })

describe('decode-image?read=text', () => {
  it(
    'answers the text, the SHIP TO block with its name, and the recipient among confusable contacts',
    async () => {
      const a = api(t, await t.newClient())
      const { first, last, middle } = entry.person
      const name = [first, middle ? `${middle}.` : undefined, last].filter(Boolean).join(' ')
      const right = await a.contact('RECEIVER', name)
      // One letter away in the surname, and the same surname with another first name.
      await a.contact('RECEIVER', `${first} ${last.slice(0, -1)}x`)
      await a.contact('RECEIVER', `Zebedee ${last}`)

      const res = await a.call('POST', `${DECODE_IMAGE}?read=text`, { base64: photo })
      expect(res.statusCode, res.body).toBe(200)
      const body = res.json()
      expect(body.barcodes.length).toBeGreaterThan(0)
      const label = body.label
      expect(label.error).toBeUndefined()
      expect(label.confidence).toBeGreaterThan(50)
      expect(label.lines.map((l: { text: string }) => l.text)).toContain(label.shipTo.nameLine)
      expect(label.shipTo.nameLine.toUpperCase()).toBe(entry.printedName.toUpperCase())
      expect(label.shipTo.foundBy).toBe('marker')
      expect(label.recipient.suggestions[0].contactId).toBe(right)
      expect(label.recipient.suggestions.length).toBeLessThanOrEqual(3)
    },
    OCR_TIMEOUT,
  )

  it(
    'without read, the answer is as it always was: barcodes only',
    async () => {
      const a = api(t, await t.newClient())
      const res = await a.call('POST', DECODE_IMAGE, { base64: photo })
      expect(res.statusCode, res.body).toBe(200)
      expect(Object.keys(res.json())).toEqual(['barcodes'])
    },
    OCR_TIMEOUT,
  )

  it(
    'a query parameter the route does not know is ignored, as it always was (not a 400)',
    async () => {
      const a = api(t, await t.newClient())
      const res = await a.call('POST', `${DECODE_IMAGE}?_=1732712345&trace=abc`, { base64: photo })
      expect(res.statusCode, res.body).toBe(200)
      expect(Object.keys(res.json())).toEqual(['barcodes'])
    },
    OCR_TIMEOUT,
  )

  it(
    'refuses an unknown read mode, naming it',
    async () => {
      const a = api(t, await t.newClient())
      const res = await a.call('POST', `${DECODE_IMAGE}?read=everything`, { base64: photo })
      expect(res.statusCode).toBe(400)
      expect(res.json().errors[0].additionalParameters).toBe('read')
    },
    OCR_TIMEOUT,
  )
})
