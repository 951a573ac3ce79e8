import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  decodeScan,
  gs1CheckDigit,
  mailroomCheckChar,
  s10CheckDigit,
  upsCheckDigit,
  type CarrierCode,
} from '../../src/decode/index.js'
import { UPS_1Z_SERVICE_CODES } from '../../src/decode/tables/services.js'
import { confidentMatch, isStrong, RANK, type Match } from '../../src/decode/tracking/match.js'

const GS = '\u001d'
const RS = '\u001e'
const EOT = '\u0004'
const DIGIT = fc.constantFrom(...'0123456789')
const digits = (n: number) => fc.string({ unit: DIGIT, minLength: n, maxLength: n })

const match = (carrierId: CarrierCode, rank: number, checkDigitValid: boolean, trackingNumber = 'N1'): Match => ({
  carrierId,
  rank,
  checkDigitValid,
  trackingNumber,
})

describe('what makes a reading strong', () => {
  it('every rank × check verdict', () => {
    const cases: Array<[number, boolean, boolean]> = [
      [RANK.NAMED, true, true],
      [RANK.NAMED, false, true], // the symbol names the carrier, whatever the number's check says
      [RANK.PREFIX_CHECK, true, true],
      [RANK.PREFIX_CHECK, false, false],
      [RANK.PREFIX, true, true],
      [RANK.PREFIX, false, false],
      [RANK.SHAPE_CHECK, true, false],
      [RANK.SHAPE_CHECK, false, false],
      [RANK.ALTERNATE, true, false],
      [RANK.ALTERNATE_RARE, true, false],
      [RANK.WEAK, true, false],
      [RANK.WEAK, false, false],
    ]
    for (const [rank, valid, strong] of cases)
      expect(isStrong(match('UPS', rank, valid)), `${rank} ${valid}`).toBe(strong)
  })

  it('a strong top reading is stated only when no other carrier reads the number validly or strongly', () => {
    expect(confidentMatch([])).toBeUndefined()
    expect(confidentMatch([match('UPS', RANK.PREFIX_CHECK, true)])?.carrierId).toBe('UPS')
    expect(confidentMatch([match('FEDEX', RANK.SHAPE_CHECK, true)])).toBeUndefined()
    // Same carrier, other numbers (MaxiCode fits): still that carrier.
    expect(confidentMatch([match('UPS', RANK.NAMED, true, 'A'), match('UPS', RANK.NAMED, true, 'B')])?.carrierId).toBe(
      'UPS',
    )
    // Another carrier reading the same number with a valid check.
    expect(
      confidentMatch([match('USPS', RANK.PREFIX_CHECK, true), match('FEDEX', RANK.ALTERNATE, true)]),
    ).toBeUndefined()
    // … with a failed check: no competition.
    expect(
      confidentMatch([match('USPS', RANK.PREFIX_CHECK, true), match('FEDEX', RANK.ALTERNATE, false)])?.carrierId,
    ).toBe('USPS')
    // A weak valid reading of another number (an SSCC beside an IMpb) does not compete.
    expect(
      confidentMatch([match('USPS', RANK.PREFIX_CHECK, true, 'PIC'), match('FEDEX', RANK.ALTERNATE, true, 'SSCC')])
        ?.carrierId,
    ).toBe('USPS')
    // A strong reading of another carrier's number does.
    expect(
      confidentMatch([match('UPS', RANK.PREFIX_CHECK, true, 'A'), match('AMAZON', RANK.PREFIX, true, 'B')]),
    ).toBeUndefined()
    expect(
      confidentMatch([match('UPS', RANK.PREFIX_CHECK, true, 'A'), match('FEDEX', RANK.NAMED, false, 'B')]),
    ).toBeUndefined()
  })
})

describe('a carrier is stated only from a strong reading', () => {
  it.each([
    ['1Z999AA10123456784', 'UPS', { code: '01', name: 'Next Day Air' }],
    ['MI123456ABC1234567', 'UPS', { name: 'Mail Innovations' }],
    ['TBA502887274000', 'AMAZON', undefined],
    ['JJD0099999999', 'DHL_EXPRESS', undefined],
    ['JD014600006281227283', 'DHL_EXPRESS', undefined],
    ['GM2951173225174494', 'DHL_ECOMMERCE', undefined],
    ['EA123456785US', 'USPS', { code: 'EA', name: 'EMS' }],
    ['RB123456785GB', 'ROYAL_MAIL', { code: 'RB', name: 'Registered letter post' }],
    ['9400111201080805483016', 'USPS', { code: '001' }],
    ['9611020987654312345672', 'FEDEX', { code: '020' }],
    ['1001921334250001000300779017972697', 'FEDEX', undefined],
    ['C11031500001879', 'ONTRAC', undefined],
  ])('%s → %s', (scan, carrierId, service) => {
    const r = decodeScan(scan)
    expect(r.carrier?.carrierId).toBe(carrierId)
    expect(r.carrier?.service).toEqual(service)
  })

  it("mailroom numbers name the catalogue's carrier, by its catalogue name", () => {
    const body = 'ABCDEF123456'
    expect(decodeScan(`MR${body}${mailroomCheckChar(body)}`).carrier).toEqual({
      carrierId: 'MAILROOM',
      name: 'Mailroom (internal)',
    })
  })

  it.each([
    ['1Z999AA10123456785', 'UPS'],
    ['EA123456784US', 'USPS'],
    ['9400111201080805483017', 'USPS'],
    ['C11031500001889', 'ONTRAC'],
  ])('a carrier prefix with a failed check: %s is listed as %s, not stated', (scan, carrierId) => {
    const r = decodeScan(scan)
    expect(r.carrier).toBeUndefined()
    expect(r.candidates[0]).toMatchObject({ carrierId, checkDigitValid: false })
  })

  it.each([
    ['3318810025', 'DHL_EXPRESS'], // 10 digits, mod 7: a phone number passes one time in seven
    ['986578788855', 'FEDEX'], // 12 digits, mod 11
    ['041441760228964', 'FEDEX'], // 15 digits, mod 10
    ['0073938000549297', 'CANADA_POST'], // 16 digits, mod 10
    ['71123456789123456787', 'USPS'], // 20 digits, two chances at mod 10
    ['61299998820821171811', 'FEDEX'], // 20 digits, implied "92"
    ['320595463938', 'PUROLATOR'], // 12 digits, Luhn
    ['0081 827 0998 0000 0200 33 350 276 C', 'DPD'], // label line, mod 37,36 but no prefix
  ])('a bare shape whose check holds stays a candidate: %s (%s)', (scan, carrierId) => {
    const r = decodeScan(scan)
    expect(r.carrier).toBeUndefined()
    expect(r.candidates[0]).toMatchObject({ carrierId, checkDigitValid: true })
  })

  it('no digits-only scan of 10 to 21 digits ever states a carrier: shapes and routing codes only', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 21 }).chain((n) => digits(n)),
        (n) => decodeScan(n).carrier === undefined,
      ),
      { numRuns: 3000 },
    )
  })

  it('a 10-digit phone number whose mod 7 holds is still no DHL Express parcel', () => {
    fc.assert(
      fc.property(digits(9), (nine) => {
        const phone = nine + String(Number(nine) % 7)
        const r = decodeScan(phone)
        return r.carrier === undefined && r.candidates.some((c) => c.carrierId === 'DHL_EXPRESS' && c.checkDigitValid)
      }),
    )
  })

  it('any 1Z number with a valid check states UPS', () => {
    const alnum = fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ')
    fc.assert(
      fc.property(
        fc.string({ unit: alnum, minLength: 6, maxLength: 6 }),
        fc.constantFrom(...UPS_1Z_SERVICE_CODES),
        digits(7),
        (shipper, code, pkg) => {
          const data = `${shipper}${code}${pkg}`
          const r = decodeScan(`1Z${data}${upsCheckDigit(data)}`)
          return r.carrier?.carrierId === 'UPS' && r.trackingNumber === `1Z${data}${upsCheckDigit(data)}`
        },
      ),
    )
  })

  it('any UPU S10 number of USPS, Canada Post or Royal Mail with a valid check states that post', () => {
    const posts = { US: 'USPS', CA: 'CANADA_POST', GB: 'ROYAL_MAIL' } as const
    fc.assert(
      fc.property(
        fc.constantFrom('EA', 'RB', 'CP', 'LZ'),
        digits(8),
        fc.constantFrom('US', 'CA', 'GB'),
        (indicator, serial, country) => {
          return (
            decodeScan(`${indicator}${serial}${s10CheckDigit(serial)}${country}`).carrier?.carrierId === posts[country]
          )
        },
      ),
    )
  })

  it('an IMpb of channel 94 states USPS; of channel 92 or 93 it does not (consolidators share them)', () => {
    fc.assert(
      fc.property(fc.constantFrom('92', '93', '94'), digits(19), (channel, rest) => {
        const body = channel + rest
        const r = decodeScan(body + gs1CheckDigit(body))
        return channel === '94'
          ? r.carrier?.carrierId === 'USPS'
          : r.carrier === undefined && r.candidates[0]?.carrierId === 'USPS'
      }),
    )
  })

  it('a SCAC in the symbol names the carrier, even when the number fails its check', () => {
    const ok = decodeScan(`[)>${RS}01${GS}02${GS}38017${GS}840${GS}01${GS}986578788855${GS}FDEB${RS}${EOT}`)
    expect(ok.carrier).toEqual({ carrierId: 'FEDEX', name: 'FedEx', scac: 'FDEB', service: { code: '01' } })
    const bad = decodeScan(`[)>${RS}01${GS}02${GS}38017${GS}840${GS}01${GS}986578788856${GS}FDEG${RS}${EOT}`)
    expect(bad.carrier).toMatchObject({ carrierId: 'FEDEX', scac: 'FDEG' })
    expect(bad.candidates[0]?.checkDigitValid).toBe(false)
  })

  it('a carrier tracking URL names its carrier', () => {
    expect(decodeScan('https://www.fedex.com/fedextrack/?trknbr=986578788855').carrier?.carrierId).toBe('FEDEX')
  })

  it('LaserShip "1LS" numbers are tracked by LaserShip and OnTrac alike: listed, not stated', () => {
    const r = decodeScan('1LS717793482164')
    expect(r.carrier).toBeUndefined()
    expect(r.candidates.map((c) => c.carrierId)).toEqual(['LASERSHIP', 'ONTRAC'])
  })

  it("two carriers' numbers in one QR text: both listed, neither stated", () => {
    const r = decodeScan('UPS 1Z999AA10123456784 / Amazon TBA502887274000')
    expect(r.candidates.map((c) => c.carrierId).sort()).toEqual(['AMAZON', 'UPS'])
    expect(r.carrier).toBeUndefined()
  })
})
