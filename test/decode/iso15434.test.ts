import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { decodeScan, upsCheckDigit } from '../../src/decode/index.js'

const GS = '\u001d'
const RS = '\u001e'
const EOT = '\u0004'
const env = (...segments: string[]) => `[)>${RS}${segments.join(RS)}${RS}${EOT}`
const els = (...elements: string[]) => elements.join(GS)

// UPS MaxiCode mode 2 as in UPS's "Guide to Bar Coding" examples, reproduced in printer manuals
// (Honeywell DPL reference, Avery Dennison Monarch packet reference): class 001, shipper 12345E.
const UPS_MODE2 = env(
  els(
    '01',
    '96841706672',
    '840',
    '001',
    '1Z12345675',
    'UPSN',
    '12345E',
    '089',
    '',
    '1/1',
    '10.1',
    'Y',
    '634 ALPHA DR',
    'PITTSBURGH',
    'PA',
  ),
)
// The full numbers the short field "1Z12345675" and shipper 12345E fit: 1Z service codes 01, 44 and
// A0 all give the same check digit, so the symbol alone cannot tell them apart.
const MODE2_FITS = ['1Z12345E0112345675', '1Z12345E4412345675', '1Z12345EA012345675']

describe('ISO/IEC 15434 format 01 — UPS MaxiCode', () => {
  it('reads the positional transportation fields', () => {
    const r = decodeScan(`]U1${UPS_MODE2}`)
    expect(r.format).toBe('ISO15434')
    expect(r.envelope).toEqual({ formats: ['01'], header: '96' })
    expect(r.fields).toMatchObject({
      aim: ']U1',
      shipToPostalCode: '841706672',
      countryCode: '840',
      serviceClass: '001',
      trackingNumber: '1Z12345675',
      scac: 'UPSN',
      shipperId: '12345E',
      julianPickupDay: '089',
      packageCount: '1/1',
      weight: '10.1',
      addressValidation: 'Y',
      shipToAddress: '634 ALPHA DR',
      shipToCity: 'PITTSBURGH',
      shipToState: 'PA',
    })
    expect(r.destination).toEqual({ postalCode: '84170-6672', country: 'US', city: 'PITTSBURGH', state: 'PA' })
    expect(r.receiver).toEqual({
      line1: '634 ALPHA DR',
      city: 'PITTSBURGH',
      state: 'PA',
      postalCode: '84170-6672',
      country: 'US',
    })
    expect(r.packageCount).toEqual({ n: 1, of: 1 })
    expect(r.weight).toBe('10.1')
  })

  it('several full 1Z numbers fit the short field: all listed, the short field kept, none invented', () => {
    const r = decodeScan(UPS_MODE2)
    expect(r.trackingNumber).toBe('1Z12345675')
    const service = { code: '001', name: 'Next Day Air' }
    expect(r.candidates).toEqual(
      MODE2_FITS.map((trackingNumber) => ({
        carrierId: 'UPS',
        name: 'UPS',
        scac: 'UPSN',
        service,
        checkDigitValid: true,
        trackingNumber,
        trackingUrl: `https://www.ups.com/track?tracknum=${trackingNumber}`,
      })),
    )
    // UPS is certain (its SCAC), and so is the class of service; which 1Z service code is not.
    expect(r.carrier).toEqual({ carrierId: 'UPS', name: 'UPS', scac: 'UPSN', service })
    expect(r.fields.upsServiceCode).toBeUndefined()
  })

  it('the class of service is not the 1Z service code: a real 1Z…44… number is among the candidates', () => {
    // Class 001 (Next Day Air) once became service "01"; the package's real number has "44".
    const r = decodeScan(UPS_MODE2)
    expect(r.candidates.map((c) => c.trackingNumber)).toContain('1Z12345E4412345675')
    expect(r.trackingNumber).not.toBe('1Z12345E0112345675')
  })

  it.each([
    ['12', '012', '3 Day Select'],
    ['78', '003', 'Ground'],
    ['A9', '014', 'Next Day Air Early'],
  ])(
    'exactly one 1Z service code fits (%s): that full number is the tracking number',
    (code, serviceClass, className) => {
      const data = `12345E${code}1234567`
      const full = `1Z${data}${upsCheckDigit(data)}`
      const r = decodeScan(
        env(els('01', '96841706672', '840', serviceClass, `1Z${full.slice(10)}`, 'UPSN', '12345E', '089')),
      )
      expect(r.trackingNumber).toBe(full)
      expect(r.candidates).toEqual([
        {
          carrierId: 'UPS',
          name: 'UPS',
          scac: 'UPSN',
          service: { code: serviceClass, name: className },
          checkDigitValid: true,
          trackingNumber: full,
          trackingUrl: `https://www.ups.com/track?tracknum=${full}`,
        },
      ])
      expect(r.fields).toMatchObject({ upsShipperNumber: '12345E', upsServiceCode: code })
    },
  )

  it('without a SCAC the rebuilt numbers are read on their own, each with its 1Z service', () => {
    const r = decodeScan(env(els('01', '96841706672', '840', '001', '1Z12345675', '', '12345E', '089')))
    expect(r.trackingNumber).toBe('1Z12345675')
    expect(r.candidates.map((c) => [c.trackingNumber, c.service?.code])).toEqual([
      [MODE2_FITS[0], '01'],
      [MODE2_FITS[1], '44'],
      [MODE2_FITS[2], 'A0'],
    ])
    // The carrier is still UPS ("1Z"), but the candidates disagree on the service: none is stated.
    expect(r.carrier).toEqual({ carrierId: 'UPS', name: 'UPS' })
  })

  it('mode 3: alphanumeric postal code, ISO numeric country 124', () => {
    const scan = env(
      els(
        '01',
        '96V6C3E2',
        '124',
        '066',
        '1Z12345679',
        'UPSN',
        '12345E',
        '089',
        '',
        '1/1',
        '10',
        'Y',
        '',
        'TORONTO',
        'ON',
      ),
    )
    const r = decodeScan(scan)
    expect(r.destination).toEqual({ postalCode: 'V6C3E2', country: 'CA', city: 'TORONTO', state: 'ON' })
    // 42, 66 and A8 fit alike.
    expect(r.trackingNumber).toBe('1Z12345679')
    expect(r.candidates.map((c) => c.trackingNumber)).toEqual([
      '1Z12345E4212345679',
      '1Z12345E6612345679',
      '1Z12345EA812345679',
    ])
    expect(r.candidates.every((c) => c.checkDigitValid)).toBe(true)
  })

  it('keeps the short field, flagged, when no full number can be rebuilt (no shipper number)', () => {
    const scan = env(els('01', '96841706672', '840', '001', '1Z12345676', 'UPSN', '', '089', '', '1/1', '10', 'Y'))
    const r = decodeScan(scan)
    expect(r.trackingNumber).toBe('1Z12345676')
    expect(r.candidates).toEqual([
      expect.objectContaining({ carrierId: 'UPS', checkDigitValid: false, trackingNumber: '1Z12345676', scac: 'UPSN' }),
    ])
  })

  it('a full 18-character 1Z in the tracking field is used as is', () => {
    const r = decodeScan(env(els('01', '96841706672', '840', '003', '1Z5R89390357567127', 'UPSN', '5R8939', '089')))
    expect(r.trackingNumber).toBe('1Z5R89390357567127')
    expect(r.candidates[0]).toMatchObject({ checkDigitValid: true, service: { code: '003', name: 'Ground' } })
  })

  it('secondary message on its own, primary message sent before "[)>" (reader-dependent order)', () => {
    const secondary = env(
      els('01', '961Z00004951', 'UPSN', '06X610', '159', '1234567', '1/1', '', 'Y', '634 ALPHA DR', 'PITTSBURGH', 'PA'),
    )
    const r = decodeScan(els('152382802', '840', '001', secondary))
    expect(r.trackingNumber).toBe('1Z00004951')
    expect(r.candidates.map((c) => c.trackingNumber)).toEqual([
      '1Z06X6100100004951',
      '1Z06X6104400004951',
      '1Z06X610A000004951',
    ])
    expect(r.fields).toMatchObject({ shipToPostalCode: '152382802', shipmentId: '1234567', shipToCity: 'PITTSBURGH' })
    expect(r.destination?.postalCode).toBe('15238-2802')
  })

  it('a structured carrier message without any envelope', () => {
    const r = decodeScan(
      els('841706672', '840', '001', '1Z12345675', 'UPSN', '12345E', '089', '', '1/1', '10', 'Y', '', '', 'CT'),
    )
    expect(r.format).toBe('ISO15434')
    expect(r.envelope).toEqual({ formats: ['01'] })
    expect(r.trackingNumber).toBe('1Z12345675')
    expect(r.candidates.map((c) => c.trackingNumber)).toEqual(MODE2_FITS)
    expect(r.destination).toEqual({ postalCode: '84170-6672', country: 'US', state: 'CT' })
  })

  it.each([
    ['no EOT', UPS_MODE2.slice(0, -1)],
    ['no final RS nor EOT', UPS_MODE2.slice(0, -2)],
    ['trailing CR LF', `${UPS_MODE2}\r\n`],
  ])('tolerates missing trailers (%s)', (_, scan) => {
    const r = decodeScan(scan)
    expect(r.trackingNumber).toBe('1Z12345675')
    expect(r.candidates.map((c) => c.trackingNumber)).toEqual(MODE2_FITS)
    expect(r.fields.shipToState).toBe('PA')
  })

  it('accepts visible stand-ins for the control characters', () => {
    const visible = UPS_MODE2.replaceAll(RS, '<RS>').replaceAll(GS, '<GS>').replaceAll(EOT, '<EOT>')
    expect(decodeScan(visible)).toEqual(decodeScan(UPS_MODE2))
    const pictures = UPS_MODE2.replaceAll(RS, '\u241e').replaceAll(GS, '\u241d').replaceAll(EOT, '\u2404')
    expect(decodeScan(pictures)).toEqual(decodeScan(UPS_MODE2))
  })

  it('UPS compressed format 07 trailer is kept opaque even when it holds RS, GS and EOT', () => {
    const binary = `\u0001${RS}${GS}${EOT}\u00ffZ`
    const scan = `[)>${RS}${els('01', '96841706672', '840', '001', '1Z12345675', 'UPSN', '12345E', '089')}${RS}07${binary}${RS}${EOT}`
    const r = decodeScan(scan)
    expect(r.envelope?.formats).toEqual(['01', '07'])
    expect(Buffer.from(r.fields.format07Base64 ?? '', 'base64')).toEqual(Buffer.from(binary, 'latin1'))
    expect(r.candidates.map((c) => c.trackingNumber)).toEqual(MODE2_FITS)
  })
})

describe('ISO/IEC 15434 format 01 — FedEx PDF417', () => {
  const FEDEX = env(
    els(
      '01',
      '0238017',
      '840',
      '01',
      '986578788855',
      'FDEB',
      '123456789',
      '200',
      '',
      '1/2',
      '7.00LB',
      'N',
      '9185 GRANT AVE',
      'COLLIERVILLE',
      'TN',
    ),
    els('06', '10ZED008', '11ZJOHN DOE', '12Z9015551234'),
  )

  it('header 02, SCAC names FedEx, format 06 data identifiers as fields', () => {
    const r = decodeScan(`]L2${FEDEX}`)
    expect(r.envelope).toEqual({ formats: ['01', '06'], header: '02' })
    expect(r.trackingNumber).toBe('986578788855')
    expect(r.candidates).toEqual([
      {
        carrierId: 'FEDEX',
        name: 'FedEx',
        scac: 'FDEB',
        service: { code: '01' },
        checkDigitValid: true,
        trackingNumber: '986578788855',
        trackingUrl: 'https://www.fedex.com/fedextrack/?trknbr=986578788855',
      },
    ])
    expect(r.fields).toMatchObject({ '10Z': 'ED008', '11Z': 'JOHN DOE', '12Z': '9015551234' })
    expect(r.receiver).toMatchObject({
      name: 'JOHN DOE',
      line1: '9185 GRANT AVE',
      city: 'COLLIERVILLE',
      state: 'TN',
      postalCode: '38017',
      country: 'US',
    })
    expect(r.packageCount).toEqual({ n: 1, of: 2 })
    expect(r.weight).toBe('7.00LB')
  })

  it('a header followed by its own GS is read the same way', () => {
    const r = decodeScan(env(els('01', '02', '38017', '840', '01', '986578788855', 'FDEG')))
    expect(r.envelope?.header).toBe('02')
    expect(r.fields.shipToPostalCode).toBe('38017')
    expect(r.candidates[0]).toMatchObject({ carrierId: 'FEDEX', scac: 'FDEG' })
  })

  it('a SCAC naming the carrier keeps other carriers out, even when the check fails', () => {
    const r = decodeScan(env(els('01', '02', '38017', '840', '01', '986578788856', 'FDEG')))
    expect(r.candidates).toEqual([expect.objectContaining({ carrierId: 'FEDEX', checkDigitValid: false })])
  })

  it('an unknown SCAC names nobody: the tracking field is read on its own', () => {
    const r = decodeScan(env(els('01', '96841706672', '840', '001', '1Z5R89390357567127', 'ZZZZ', '5R8939')))
    expect(r.candidates[0]).toMatchObject({ carrierId: 'UPS', checkDigitValid: true })
    expect(r.candidates[0]?.scac).toBeUndefined()
  })
})

describe('ISO/IEC 15434 formats 05, 06, 09', () => {
  it('format 05 carries GS1 element strings', () => {
    const r = decodeScan(env(els('05', '42012345', '9205590164917312751089')))
    expect(r.envelope).toEqual({ formats: ['05'] })
    expect(r.fields).toMatchObject({ ai420: '12345', ai92: '05590164917312751089' })
    expect(r.trackingNumber).toBe('9205590164917312751089')
    expect(r.candidates[0]?.carrierId).toBe('USPS')
  })

  it('format 06: DHL licence plate and 2L routing (country + postcode + product)', () => {
    const r = decodeScan(env(els('06', 'JJD014600006281227283', '2LDE53113+70000000', '1P12345')))
    expect(r.fields).toMatchObject({
      J: 'JD014600006281227283',
      '2L': 'DE53113+70000000',
      '1P': '12345',
      routingCode: '70000000',
    })
    expect(r.destination).toEqual({ country: 'DE', postalCode: '53113' })
    expect(r.candidates[0]).toMatchObject({ carrierId: 'DHL_EXPRESS', trackingNumber: 'JD014600006281227283' })
  })

  it('format 06 with a plain ZIP in 2L and no carrier number invents nothing', () => {
    const r = decodeScan(env(els('06', '2L90210', 'K4500012345', '1JUN123456789')))
    expect(r.destination).toEqual({ postalCode: '90210' })
    expect(r.candidates).toEqual([])
    expect(r.trackingNumber).toBeNull()
  })

  it('format 09 is read by its byte count: RS, GS and EOT inside the bytes are data', () => {
    const bytes = `A${RS}${GS}${EOT}B${RS}06`
    const scan = `[)>${RS}09${GS}label.bin${GS}none${GS}${bytes.length}${GS}${bytes}${RS}${els('06', '2L30301')}${RS}${EOT}`
    const r = decodeScan(scan)
    expect(r.envelope?.formats).toEqual(['09', '06'])
    expect(r.fields).toMatchObject({
      binaryFileType: 'label.bin',
      binaryCompression: 'none',
      binaryByteCount: String(bytes.length),
    })
    expect(Buffer.from(r.fields.binaryBase64 ?? '', 'base64').toString('latin1')).toBe(bytes)
    expect(r.fields['2L']).toBe('30301')
  })

  it('format 09 cut short keeps what arrived', () => {
    const scan = `[)>${RS}09${GS}f${GS}c${GS}100${GS}ABC`
    const r = decodeScan(scan)
    expect(r.fields.binaryByteCount).toBe('100')
    expect(Buffer.from(r.fields.binaryBase64 ?? '', 'base64').toString('latin1')).toBe('ABC')
  })

  it('several segments keep their order in envelope.formats', () => {
    const scan = env(
      els('06', '2L30301'),
      els('05', '42030301'),
      els('01', '96303010000', '840', '003', '1Z5R89390357567127', 'UPSN'),
    )
    expect(decodeScan(scan).envelope?.formats).toEqual(['06', '05', '01'])
  })
})
