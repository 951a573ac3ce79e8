import fc from 'fast-check'
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

  it('SSCC (AI 00) with its mod 10 check: the SSCC is the number, no carrier is stated', () => {
    const r = decodeScan(`]C100${SSCC}`)
    expect(r.format).toBe('GS1')
    expect(r.fields.ai00).toBe(SSCC)
    expect(r.trackingNumber).toBe(SSCC)
    // An SSCC is the shipper's number: FedEx Ground tracks by it, so FedEx is a candidate, never more.
    expect(r.candidates).toEqual([
      {
        carrierId: 'FEDEX',
        name: 'FedEx',
        checkDigitValid: true,
        trackingNumber: `00${SSCC}`,
        trackingUrl: `https://www.fedex.com/fedextrack/?trknbr=00${SSCC}`,
      },
    ])
    expect(r.carrier).toBeUndefined()
    const bad = SSCC.slice(0, -1) + String((Number(SSCC.slice(-1)) + 1) % 10)
    expect(decodeScan(`]C100${bad}`).candidates[0]?.checkDigitValid).toBe(false)
  })

  it("the reviewer's SSCC 00340434161094042557 states no carrier", () => {
    for (const scan of [
      '00340434161094042557',
      ']C100340434161094042557',
      '(00)340434161094042557',
      '(00) 3 4043416 109404255 7',
    ]) {
      const r = decodeScan(scan)
      expect(r.format, scan).toBe('GS1')
      expect(r.trackingNumber, scan).toBe('340434161094042557')
      expect(r.carrier, scan).toBeUndefined()
      // Bare, the same 20 digits are a USPS 20-digit number as well (leading zeros leave its check as it is).
      expect(
        r.candidates.map((c) => c.carrierId),
        scan,
      ).toEqual(scan.startsWith('00') ? ['FEDEX', 'USPS'] : ['FEDEX'])
    }
  })

  it('any SSCC, however written, never becomes a stated carrier', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 17, maxLength: 17 }),
        fc.constantFrom('', ']C1', ']d2', '(00)'),
        (body, prefix) => {
          const sscc = body + gs1CheckDigit(body)
          const r = decodeScan(prefix === '(00)' ? `(00)${sscc}` : `${prefix}00${sscc}`)
          // Bare "00" + SSCC also reads as a USPS 20-digit number, listed after FedEx.
          return (
            r.carrier === undefined &&
            r.trackingNumber === sscc &&
            r.candidates[0]?.carrierId === 'FEDEX' &&
            r.candidates.every(
              (c) =>
                c.checkDigitValid === true && (c.carrierId === 'FEDEX' || (prefix === '' && c.carrierId === 'USPS')),
            )
          )
        },
      ),
    )
  })

  it('an SSCC beside an IMpb: the USPS number is the tracking number, USPS the carrier', () => {
    const pic = '9400111201080805483016'
    const r = decodeScan(`]d2${GS}00${SSCC}420902101234${GS}${pic}`)
    expect(r.trackingNumber).toBe(pic)
    expect(r.carrier?.carrierId).toBe('USPS')
    expect(r.candidates.map((c) => c.carrierId)).toEqual(['USPS', 'FEDEX'])
    expect(r.fields.ai00).toBe(SSCC)
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

  it('ship-to city, region and country also give the destination', () => {
    const r = decodeScan(`]d2${GS}00${SSCC}420902101234${GS}4301JANE DOE${GS}4305SPRINGFIELD${GS}4306IL${GS}4307US`)
    expect(r.destination).toEqual({ postalCode: '90210-1234', city: 'SPRINGFIELD', state: 'IL', country: 'US' })
    const ca = decodeScan(`]d2${GS}00${SSCC}4300ACME${GS}4305TORONTO${GS}4306ON${GS}4307CA`)
    expect(ca.destination).toEqual({ city: 'TORONTO', state: 'ON', country: 'CA' })
    // Not an ISO 3166 alpha-2 code: neither receiver nor destination country.
    expect(decodeScan(`]d2${GS}00${SSCC}4301JANE${GS}4307ZZ`).destination).toBeUndefined()
  })

  it('a company-only ship-to still carries the postal code and country to the receiver', () => {
    const r = decodeScan(`]d2${GS}00${SSCC}420902101234${GS}4300ACME CORP${GS}4307US`)
    expect(r.receiver).toEqual({ company: 'ACME CORP', country: 'US', postalCode: '90210-1234' })
  })

  it('percent-encoded ship-to AIs (pcenc) are decoded as UTF-8', () => {
    const scan = `]d2${GS}00${SSCC}4300M%C3%BCller%20%26%20Co${GS}4301Jos%C3%A9 Garc%C3%ADa${GS}4302Stra%C3%9Fe 1${GS}4303%25 off${GS}4305K%C3%B6ln${GS}4306NRW${GS}4307DE`
    const r = decodeScan(scan)
    expect(r.receiver).toEqual({
      company: 'Müller & Co',
      name: 'José García',
      line1: 'Straße 1',
      line2: '% off',
      city: 'Köln',
      state: 'NRW',
      country: 'DE',
    })
    expect(r.destination).toEqual({ city: 'Köln', state: 'NRW', country: 'DE' })
    expect(r.fields).toMatchObject({ ai4300: 'Müller & Co', ai4305: 'Köln' })
  })

  it('return-to (4310–4316) and service description (4320) are decoded too; other AIs are left as read', () => {
    const r = decodeScan(
      `]d2${GS}00${SSCC}4311Ren%C3%A9${GS}4316%C3%8Ele${GS}4320Livraison%20rapide${GS}4308%2B1 555${GS}400PO%2012`,
    )
    expect(r.fields).toMatchObject({
      ai4311: 'René',
      ai4316: 'Île',
      ai4320: 'Livraison rapide',
      ai4308: '%2B1 555',
      ai400: 'PO%2012',
    })
    // Return-to is not the receiver.
    expect(r.receiver).toBeUndefined()
  })

  it.each([
    ['a stray "%"', '100%'],
    ['a "%" before non-hex', 'A%G1B'],
    ['a cut-off sequence', 'ABC%4'],
    ['bytes that are not UTF-8', 'M%FCller'],
  ])('a malformed percent-encoding is kept as read (%s)', (_, value) => {
    expect(decodeScan(`]d2${GS}00${SSCC}4301${value}`).receiver?.name).toBe(value)
  })

  it.each([
    ['7230', 'EM123456', 'EM123456'],
    ['7235', 'XY1', 'XY1'],
    ['7239', `AB${'C'.repeat(28)}`, `AB${'C'.repeat(28)}`],
    ['7241', '01', '01'],
    ['7242', 'VCN-2024.1', 'VCN-2024.1'],
  ])('AI %s (certification reference, AIDC media type, version control number) parses', (ai, value, expected) => {
    const r = decodeScan(`]d2${GS}00${SSCC}${ai}${value}${GS}4301JANE DOE`)
    expect(r.format).toBe('GS1')
    expect(r.fields[`ai${ai}`]).toBe(expected)
    expect(r.receiver?.name).toBe('JANE DOE')
  })

  it('7241 is two digits: what follows without a separator is the next AI', () => {
    const r = decodeScan(`]d2${GS}00${SSCC}724101${'4301'}JANE`)
    expect(r.fields).toMatchObject({ ai7241: '01', ai4301: 'JANE' })
  })

  it('7230 longer than 30 characters is no element string', () => {
    expect(decodeScan(`]d2${GS}00${SSCC}7230${'A'.repeat(31)}`).fields.ai7230).toBeUndefined()
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
    expect(r.candidates[0]).toMatchObject({
      carrierId: 'FEDEX',
      trackingNumber: '987654312345672',
      checkDigitValid: true,
    })
  })

  it('falls back to a plain reading when the data is not a valid element string', () => {
    const r = decodeScan(']C11001901781990001000300617767839437')
    expect(r.format).toBe('PLAIN')
    expect(r.trackingNumber).toBe('617767839437')
  })
})
