import { describe, expect, it } from 'vitest'
import type { RecipientMatch, RecipientQuery } from '../../src/contacts/index.js'
import { TEXT_NOT_READ, answerLabel } from '../../src/scan/label-read.js'
import type { FoundAndDecoded } from '../../src/scan/scan-image-service.js'

// What decode-image?read=text answers from a picture's text and barcodes (pure: the OCR and the
// directory are given).

const lines = (...texts: string[]) => texts.map((text) => ({ text, confidence: 90 }))
const noMatch = async (): Promise<RecipientMatch> => ({ doubt: 'no_match', suggestions: [] })

function barcodeFor(name: string): FoundAndDecoded {
  return {
    symbology: 'PDF417',
    text: 'x',
    isGS1: false,
    position: { x: 0, y: 0, width: 1, height: 1 },
    decoded: {
      package: { trackingNumber: '1', assetType: 'PACKAGE', receiver: { name } },
      decodedCarriers: [],
      barcode: { format: 'ISO15434', fields: {} },
    },
  }
}

describe('answerLabel', () => {
  it('matches the SHIP TO block of the text, and asks no retake when it was read well', async () => {
    const asked: RecipientQuery[] = []
    const answer = await answerLabel(
      'sub',
      {
        barcodes: [],
        text: { lines: lines('SHIP TO:', 'ROBERT SMITH', 'STE 400', 'SPRINGFIELD IL 62704'), confidence: 88 },
      },
      [],
      'site_1',
      async (_sub, q) => {
        asked.push(q)
        return noMatch()
      },
    )
    expect(answer).toMatchObject({
      confidence: 88,
      retake: false,
      shipTo: { nameLine: 'ROBERT SMITH', unit: '400', foundBy: 'marker' },
    })
    expect(asked).toEqual([
      { name: expect.objectContaining({ first: 'robert', last: 'smith' }), unit: '400', siteId: 'site_1' },
    ])
  })

  it('takes a 2D barcode’s ship-to when the text names nobody, and still says the photo was hard to read', async () => {
    const logged: string[] = []
    const detail = 'OCR could not start: /srv/app/node_modules/tesseract.js/src/worker-script/index.js'
    const answer = await answerLabel(
      'sub',
      { barcodes: [], textError: detail },
      [barcodeFor('JANE DOE')],
      undefined,
      noMatch,
      (d) => logged.push(d),
    )
    // The client gets a fixed sentence; the internal detail (paths, tesseract's words) is logged only.
    expect(logged).toEqual([detail])
    expect(JSON.stringify(answer)).not.toContain('node_modules')
    expect(answer).toMatchObject({
      error: TEXT_NOT_READ,
      lines: [],
      retake: false,
      shipTo: { nameLine: 'JANE DOE', foundBy: 'barcode' },
    })
  })

  it('asks for a retake when the text was read with low confidence or names nobody', async () => {
    const low = await answerLabel(
      'sub',
      { barcodes: [], text: { lines: lines('TO: ANNA LEE'), confidence: 40 } },
      [],
      undefined,
      noMatch,
    )
    expect(low.retake).toBe(true)
    const nobody = await answerLabel(
      'sub',
      { barcodes: [], text: { lines: lines('UPS GROUND'), confidence: 95 } },
      [],
      undefined,
      noMatch,
    )
    expect(nobody.retake).toBe(true)
    expect(nobody.recipient).toBeUndefined()
  })
})
