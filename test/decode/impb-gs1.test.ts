import { describe, expect, it } from 'vitest'
import { decodeScan, gs1CheckDigit } from '../../src/decode/index.js'

// Issue 25.2: a USPS IMpb read as the GS1-128 symbol it is printed as ("420" + ZIP, FNC1 as GS, then
// the PIC) names USPS with certainty, whichever channel (92, 93, 94, 95) and whoever sold the label.

const GS = '\u001d'
/** Valid PICs of each channel (check digits pass), 22 and 26 digits. */
const PICS = {
  '92': '9261292700768711948021',
  '92/26': '92748931507708513018050063',
  '93': '9361289878700317633795',
  '94': '9400111201080805483016',
  '95': '9505511069605048600624',
}
const ZIPS = [
  ['90210', '90210'],
  ['902101234', '90210-1234'],
] as const

/** Every way a scanner hands the symbol over: with or without ]C1, FNC1 as a leading GS or not. */
function forms(zip: string, pic: string): string[] {
  const body = `420${zip}${GS}${pic}`
  return [body, `]C1${body}`, `${GS}${body}`, `]C1${GS}${body}`, `(420) ${zip} (${pic.slice(0, 2)}) ${pic.slice(2)}`]
}

describe('USPS IMpb as GS1-128 ("420" + ZIP, GS, PIC)', () => {
  for (const [channel, pic] of Object.entries(PICS)) {
    for (const [zip, shown] of ZIPS) {
      it(`channel ${channel}, ZIP ${shown}: USPS stated, the PIC is the number, alone in the candidates`, () => {
        for (const scan of forms(zip, pic)) {
          const r = decodeScan(scan)
          expect(r.format, JSON.stringify(scan)).toBe('GS1')
          expect(r.trackingNumber, JSON.stringify(scan)).toBe(pic)
          expect(r.carrier?.carrierId, JSON.stringify(scan)).toBe('USPS')
          expect(
            r.candidates.map((c) => c.carrierId),
            JSON.stringify(scan),
          ).toEqual(['USPS'])
          expect(r.destination, JSON.stringify(scan)).toEqual({ postalCode: shown, country: 'US' })
        }
      })
    }
  }

  it('FNC1 dropped after the ZIP ("420" + ZIP + PIC as one run of digits) reads the same, spaced as printed too', () => {
    for (const pic of [PICS['92'], PICS['93']]) {
      const spaced = `420 90210 ${pic.replace(/(\d{4})/g, '$1 ').trim()}`
      for (const scan of [`42090210${pic}`, `]C142090210${pic}`, `420902101234${pic}`, spaced]) {
        const r = decodeScan(scan)
        expect(r.trackingNumber, scan).toBe(pic)
        expect(r.carrier?.carrierId, scan).toBe('USPS')
      }
    }
  })

  it('the same PIC scanned bare (channels 92, 93) still leaves the clerk the consolidators, USPS first', () => {
    expect(decodeScan(PICS['92']).carrier).toBeUndefined()
    expect(decodeScan(PICS['92']).candidates.map((c) => c.carrierId)).toEqual(['USPS', 'FEDEX', 'DHL_ECOMMERCE', 'UPS'])
    expect(decodeScan(PICS['93']).carrier).toBeUndefined()
    expect(decodeScan(PICS['93']).candidates[0]?.carrierId).toBe('USPS')
  })

  it('a PIC whose check digit fails is not stated, even routed', () => {
    const pic = PICS['92']
    const bad = pic.slice(0, -1) + String((Number(pic.slice(-1)) + 1) % 10)
    expect(gs1CheckDigit(bad.slice(0, -1))).not.toBe(bad.slice(-1))
    const r = decodeScan(`]C142090210${GS}${bad}`)
    expect(r.trackingNumber).toBe(bad)
    expect(r.carrier).toBeUndefined()
    expect(r.candidates).toEqual([expect.objectContaining({ carrierId: 'USPS', checkDigitValid: false })])
  })

  it('"420" + ZIP with no PIC beside it states no carrier', () => {
    const r = decodeScan(`]C142090210`)
    expect(r.carrier).toBeUndefined()
    expect(r.candidates).toEqual([])
  })

  it('an SSCC beside "420" + ZIP is not made USPS (no PIC, no IMpb)', () => {
    const body = '00614141123456789'
    const sscc = body + gs1CheckDigit(body)
    const r = decodeScan(`]C142090210${GS}00${sscc}`)
    expect(r.carrier).toBeUndefined()
    expect(r.candidates.map((c) => c.carrierId)).toEqual(['FEDEX'])
  })
})
