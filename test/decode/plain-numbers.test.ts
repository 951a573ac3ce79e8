import { describe, expect, it } from 'vitest'
import { decodeScan, type CarrierCode } from '../../src/decode/index.js'

/**
 * The best candidate must be `carrier` with a valid check (null: its format defines none); the
 * tracking number as given.
 */
function expectBest(
  scan: string,
  carrier: CarrierCode,
  trackingNumber: string,
  checkDigitValid: boolean | null = true,
) {
  const r = decodeScan(scan)
  expect(r.format).toBe('PLAIN')
  expect(r.trackingNumber).toBe(trackingNumber)
  expect(r.candidates[0]).toMatchObject({ carrierId: carrier, checkDigitValid, trackingNumber })
  return r
}

// Published example numbers. Unless noted, the collection is tracking_number_data (jkeen), which
// gathers carriers' documented and real-world test numbers; each was re-checked by hand.
describe('UPS', () => {
  it.each([
    ['1Z5R89390357567127', '03', 'Ground'],
    ['1Z879E930346834440', '03', 'Ground'],
    ['1Z410E7W0392751591', '03', 'Ground'],
    ['1Z8V92A70367203024', '03', 'Ground'],
    ['1Z999AA10123456784', '01', 'Next Day Air'], // UPS developer kit test number
  ])('%s', (n, code, name) => {
    const r = expectBest(n, 'UPS', n)
    expect(r.candidates[0]?.service).toEqual({ code, name })
    expect(r.fields.upsShipperNumber).toBe(n.slice(2, 8))
  })

  it('reports a failed check without dropping the carrier (1Z names UPS)', () => {
    const r = decodeScan('1Z5R89390357567128')
    expect(r.candidates).toHaveLength(1)
    expect(r.candidates[0]).toMatchObject({ carrierId: 'UPS', checkDigitValid: false })
  })

  it('normalises case and spacing', () => {
    expectBest(' 1z 5r8 939 03 5756 7127\r\n', 'UPS', '1Z5R89390357567127')
  })

  it('knows Mail Innovations numbers and the T waybill shape', () => {
    expect(decodeScan('MI123456ABC1234567').candidates[0]).toMatchObject({ carrierId: 'UPS', checkDigitValid: null })
    expect(decodeScan('T1234567890').candidates[0]).toMatchObject({ carrierId: 'UPS', checkDigitValid: false })
  })
})

describe('FedEx', () => {
  it.each(['986578788855', '477179081230', '799531274483', '790535312317', '974367662710'])('Express 12 %s', (n) => {
    expectBest(n, 'FEDEX', n)
  })

  it.each(['041441760228964', '568283610012000', '568283610012734'])('Ground 15 %s', (n) => {
    expectBest(n, 'FEDEX', n)
  })

  it('Ground "96" 22-digit barcode → the 15-digit number inside', () => {
    const r = expectBest('9611020987654312345672', 'FEDEX', '987654312345672')
    expect(r.fields.fedexServiceType).toBe('020')
  })

  it.each([
    ['9622001900000000000000776632517510', '776632517510'],
    ['9632001560123456789900794808390594', '794808390594'],
    ['1001921334250001000300779017972697', '779017972697'],
    ['1027590111820004833500785458233610', '785458233610'], // issue jkeen/tracking_number_data#51: 10x prefixes
    ['1071804952390002087800925989385163', '925989385163'], // episphere/connect#851: label reads 9259 8938 5163
  ])('34-digit barcode %s → %s', (scan, n) => {
    expectBest(scan, 'FEDEX', n)
  })

  it('ASTRA 32-digit legacy barcode: tracking number in positions 17–28', () => {
    // tracking_number_data issue #24, with the 12-digit number read off the label.
    expectBest('32971514560102447849175802862014', 'FEDEX', '784917580286')
  })

  it('SmartPost 20-digit form (channel id 92 implied by the check)', () => {
    const r = expectBest('61299998820821171811', 'FEDEX', '61299998820821171811')
    expect(r.candidates.find((c) => c.carrierId === 'USPS')?.checkDigitValid).toBe(false)
  })
})

describe('USPS', () => {
  it.each([
    '9400111201080805483016', // Pub. 199 style, USPS online channel
    '9361289878700317633795',
    '9405803699300124287899',
    '9505511069605048600624', // retail channel
    '9101123456789000000013', // legacy channel 91
    '92748931507708513018050063', // 26 digits
  ])('IMpb %s', (n) => {
    const r = expectBest(n, 'USPS', n)
    expect(r.fields.impbChannel).toBe(n.slice(0, 2))
  })

  it('parses the commercial construct: channel, service type code, mailer id, serial', () => {
    const r = decodeScan('9205590164917312751089')
    expect(r.fields).toMatchObject({
      impbChannel: '92',
      serviceTypeCode: '055',
      mailerId: '901649173',
      serialNumber: '1275108',
    })
    expect(r.candidates[0]?.service).toEqual({ code: '055' })
  })

  it.each([
    ['03071790000523483741', 'Delivery Confirmation'],
    ['71123456789123456787', 'Certified Mail'],
    ['71969010756003077385', 'Certified Mail'], // check counts an implied channel id 91
  ])('legacy 20-digit %s', (n, name) => {
    const r = expectBest(n, 'USPS', n)
    expect(r.candidates[0]?.service?.name).toBe(name)
  })

  it.each(['EA123456785US', 'RB123456785US'])('UPU S10 %s', (n) => {
    expectBest(n, 'USPS', n)
  })

  it('S10 service indicator → class of item', () => {
    expect(decodeScan('EA123456785US').candidates[0]?.service).toEqual({ code: 'EA', name: 'EMS' })
    expect(decodeScan('CP123456785US').candidates[0]?.service).toEqual({ code: 'CP', name: 'Parcel post' })
  })
})

describe('DHL', () => {
  it.each(['3318810025', '8487135506', '1099255990', '3821724944'])('Express waybill %s (mod 7)', (n) => {
    expectBest(n, 'DHL_EXPRESS', n)
  })

  it.each(['JJD0099999999', 'JVGL0999999990', 'JD014600006281227283'])('Express piece id %s', (n) => {
    expectBest(n, 'DHL_EXPRESS', n, null)
  })

  it.each(['GM2951173225174494', 'GM295117494011169042'])('eCommerce %s', (n) => {
    expectBest(n, 'DHL_ECOMMERCE', n, null)
  })
})

describe('regional carriers', () => {
  it.each(['TBA000000000000', 'TBA502887274000', 'TBC123456789012'])('Amazon %s (no check digit)', (n) => {
    expectBest(n, 'AMAZON', n, null)
  })

  it.each(['C11031500001879', 'C10999911320231', 'D10011354453707', 'D10011342332145'])('OnTrac %s', (n) => {
    expectBest(n, 'ONTRAC', n)
  })

  it('OnTrac with a wrong check stays OnTrac, flagged', () => {
    expect(decodeScan('C11031500001889').candidates).toEqual([
      {
        carrierId: 'ONTRAC',
        name: 'OnTrac',
        checkDigitValid: false,
        trackingNumber: 'C11031500001889',
        trackingUrl: 'https://www.ontrac.com/tracking/?number=C11031500001889',
      },
    ])
  })

  it('LaserShip 1LS numbers are listed under LaserShip and OnTrac (one network now)', () => {
    const r = expectBest('1LS717793482164', 'LASERSHIP', '1LS717793482164', null)
    expect(r.candidates.map((c) => c.carrierId)).toEqual(['LASERSHIP', 'ONTRAC'])
    expectBest('1LS7119013618127-1', 'LASERSHIP', '1LS71190136181271', null)
  })

  it('LaserShip L + letter + 8 digits is only a shape, without a check', () => {
    expect(decodeScan('LX17635036').candidates[0]).toMatchObject({ carrierId: 'LASERSHIP', checkDigitValid: null })
  })

  it.each(['0073938000549297'])('Canada Post 16-digit %s', (n) => {
    expectBest(n, 'CANADA_POST', n)
  })

  it.each(['RB123456785CA', 'EE123456785CA'])('Canada Post S10 %s', (n) => {
    expectBest(n, 'CANADA_POST', n)
  })

  it.each(['320595463938', '320606146993', '331434972567'])('Purolator 12-digit %s (Luhn)', (n) => {
    expectBest(n, 'PUROLATOR', n)
  })

  it('Purolator three letters + nine digits is only a shape', () => {
    expect(decodeScan('KYV009956937').candidates).toEqual([
      {
        carrierId: 'PUROLATOR',
        name: 'Purolator',
        checkDigitValid: null,
        trackingNumber: 'KYV009956937',
        trackingUrl: 'https://www.purolator.com/en/shipping/tracker?searchValue=KYV009956937',
      },
    ])
  })

  it.each(['RB123456785GB', 'AA473124829GB'])('Royal Mail S10 %s', (n) => {
    expectBest(n, 'ROYAL_MAIL', n)
  })

  it('DPD barcode "%" + postcode + parcel number + service + country', () => {
    // Numbers from the DPD Parcel Label Specification examples as collected by tracking_number_data.
    const r = expectBest('%008182709980000020033350276', 'DPD', '09980000020033', null)
    expect(r.candidates[0]?.service).toEqual({ code: '350', name: 'DPD 8:30' })
    expect(r.destination).toEqual({ country: 'DE' })
    expect(r.fields).toMatchObject({ dpdPostalCode: '0081827', dpdServiceCode: '350', dpdCountryCode: '276' })
  })

  it('DPD label line with its MOD 37,36 check character', () => {
    expectBest('0081 827 0998 0000 0200 33 350 276 C', 'DPD', '09980000020033')
    expect(decodeScan('008182709980000020033350276A').candidates[0]).toMatchObject({
      carrierId: 'DPD',
      checkDigitValid: false,
    })
  })

  it('an S10 of a post outside the catalogue names its posting operator and is a candidate for the local posts', () => {
    const r = decodeScan('RR123456785DE')
    expect(r.trackingNumber).toBe('RR123456785DE')
    expect(r.candidates.map((c) => [c.carrierId, c.checkDigitValid])).toEqual([
      ['USPS', true],
      ['CANADA_POST', true],
      ['ROYAL_MAIL', true],
    ])
    expect(r.carrier).toBeUndefined()
    expect(r.fields).toMatchObject({ s10Country: 'DE', s10ServiceIndicator: 'RR', s10PostingOperator: 'Deutsche Post' })
  })

  it('an S10 shape with a country code no post issues under is no S10 item', () => {
    expect(decodeScan('RB123456785XX').candidates).toEqual([])
  })
})
