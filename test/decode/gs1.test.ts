import { describe, expect, it } from 'vitest'
import { decodeScan, gs1CheckDigit } from '../../src/decode/index.js'

const GS = '\u001d'
// A GS1 Company Prefix 0614141 SSCC as in the GS1 General Specifications' examples.
const SSCC_BODY = '00614141123456789'
const SSCC = SSCC_BODY + gs1CheckDigit(SSCC_BODY)
const PIC = '9205590164917312751089'

describe('GS1 element strings', () => {
  it('USPS IMpb with FNC1 sent as GS', () => {
    const r = decodeScan(`]C142012345${GS}${PIC}`)
    expect(r.format).toBe('GS1')
    expect(r.trackingNumber).toBe(PIC)
    expect(r.fields).toMatchObject({ aim: ']C1', ai420: '12345', ai92: PIC.slice(2) })
    expect(r.destination).toEqual({ postalCode: '12345', country: 'US' })
    expect(r.candidates[0]).toMatchObject({ carrierId: 'USPS', checkDigitValid: true, trackingNumber: PIC })
  })

  it.each([
    ['ZIP5 + 22', `420${'12345'}${PIC}`, '12345'],
    ['ZIP+4 + 22', `420${'123456789'}${PIC}`, '12345-6789'],
    ['ZIP5 + 26', `42012345${'92748931507708513018050063'}`, '12345'],
  ])('IMpb with FNC1 dropped, split by the IMpb structure (%s)', (_, scan, zip) => {
    for (const s of [scan, `]C1${scan}`]) {
      const r = decodeScan(s)
      expect(r.format).toBe('GS1')
      expect(r.destination?.postalCode).toBe(zip)
      expect(r.candidates[0]).toMatchObject({ carrierId: 'USPS', checkDigitValid: true })
      expect(r.trackingNumber).toBe(scan.slice(zip.replace('-', '').length + 3))
    }
  })

  it('published 34-digit IMpb barcodes (420 + ZIP+4 + PIC)', () => {
    // tracking_number_data "USPS 34v2" examples.
    expect(decodeScan('4201002334249200190132607600833457').trackingNumber).toBe('9200190132607600833457')
    expect(decodeScan('4201028200009261290113185417468510').trackingNumber).toBe('9261290113185417468510')
    expect(decodeScan('420221539101026837331000039521').trackingNumber).toBe('9101026837331000039521')
  })

  it('human-readable form with parentheses and print grouping', () => {
    const r = decodeScan('(420) 12345 (92) 0559 0164 9173 1275 1089')
    expect(r.format).toBe('GS1')
    expect(r.trackingNumber).toBe(PIC)
    expect(r.fields.ai420).toBe('12345')
  })

  it('"420" + ZIP alone (the carrier routing barcode) gives a destination, no carrier', () => {
    const r = decodeScan(']C1420123456789')
    expect(r.format).toBe('GS1')
    expect(r.trackingNumber).toBeNull()
    expect(r.candidates).toEqual([])
    expect(r.destination).toEqual({ postalCode: '12345-6789' })
    expect(decodeScan('42090210').destination).toEqual({ postalCode: '90210' })
  })

  it('421: ISO numeric country + postal code', () => {
    const r = decodeScan(']C1421124M5V3L9')
    expect(r.destination).toEqual({ country: 'CA', postalCode: 'M5V3L9' })
  })

  it('SSCC (AI 00) with its mod 10 check', () => {
    const r = decodeScan(`]C100${SSCC}`)
    expect(r.format).toBe('GS1')
    expect(r.fields.ai00).toBe(SSCC)
    expect(r.candidates[0]).toMatchObject({ carrierId: 'FEDEX', checkDigitValid: true, trackingNumber: `00${SSCC}` })
    const bad = SSCC.slice(0, -1) + String((Number(SSCC.slice(-1)) + 1) % 10)
    expect(decodeScan(`]C100${bad}`).candidates[0]?.checkDigitValid).toBe(false)
  })

  it('GS1 DataMatrix with ship-to AIs 4300–4307, weight and FNC1 separators', () => {
    const scan = `]d2${GS}00${SSCC}420902101234${GS}4301JANE DOE${GS}4302123 MAIN ST${GS}4303APT 4${GS}4305SPRINGFIELD${GS}4306IL${GS}4307US${GS}3302001250`
    const r = decodeScan(scan)
    expect(r.format).toBe('GS1')
    expect(r.receiver).toEqual({
      name: 'JANE DOE',
      line1: '123 MAIN ST',
      line2: 'APT 4',
      city: 'SPRINGFIELD',
      state: 'IL',
      country: 'US',
      postalCode: '90210-1234',
    })
    expect(r.weight).toBe('12.5 KG')
  })

  it('fixed-length AIs split without separators; a leading FNC1 sent as GS marks GS1', () => {
    const r = decodeScan(`${GS}0109501101530003${'17'}250101${'10'}ABC`)
    expect(r.format).toBe('GS1')
    expect(r.fields).toMatchObject({ ai01: '09501101530003', ai17: '250101', ai10: 'ABC' })
    expect(r.trackingNumber).toBeNull()
  })

  it('401 consignment number becomes the tracking number, with no carrier', () => {
    const r = decodeScan(`]C14010614141ABC123`)
    expect(r.trackingNumber).toBe('0614141ABC123')
    expect(r.candidates).toEqual([])
  })

  it('a carrier barcode printed as GS1-128 is still read as that carrier', () => {
    const r = decodeScan(']C19611020987654312345672')
    expect(r.candidates[0]).toMatchObject({ carrierId: 'FEDEX', trackingNumber: '987654312345672', checkDigitValid: true })
  })

  it('falls back to a plain reading when the data is not a valid element string', () => {
    const r = decodeScan(']C11001901781990001000300617767839437')
    expect(r.format).toBe('PLAIN')
    expect(r.trackingNumber).toBe('617767839437')
  })
})
