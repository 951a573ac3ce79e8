import { describe, expect, it } from 'vitest'
import { decodeScan } from '../../src/decode/index.js'

describe('QR payloads and free text', () => {
  it('a carrier tracking URL names the carrier', () => {
    const r = decodeScan('https://www.ups.com/track?loc=en_US&tracknum=1Z5R89390357567127&requester=ST/')
    expect(r.candidates[0]).toMatchObject({
      carrierId: 'UPS',
      trackingNumber: '1Z5R89390357567127',
      checkDigitValid: true,
    })
  })

  it('a carrier URL with a number that fits no rule still names its carrier, flagged', () => {
    const r = decodeScan('https://www.fedex.com/fedextrack/?trknbr=123ABC456DEF')
    expect(r.candidates).toEqual([
      {
        carrierId: 'FEDEX',
        name: 'FedEx',
        checkDigitValid: false,
        trackingNumber: '123ABC456DEF',
        trackingUrl: 'https://www.fedex.com/fedextrack/?trknbr=123ABC456DEF',
      },
    ])
  })

  it('USPS tracking URLs', () => {
    const r = decodeScan('https://tools.usps.com/go/TrackConfirmAction?tLabels=9400111201080805483016')
    expect(r.candidates[0]).toMatchObject({ carrierId: 'USPS', trackingNumber: '9400111201080805483016' })
  })

  it('a distinctive number inside free text is found; a bare shape is not trusted', () => {
    expect(decodeScan('Your parcel TBA502887274000 is on its way').trackingNumber).toBe('TBA502887274000')
    const r = decodeScan('Order 986578788855 confirmed')
    expect(r.candidates).toEqual([])
  })

  it('an unknown domain names nobody', () => {
    const r = decodeScan('https://example.com/t/986578788855')
    expect(r.candidates).toEqual([])
  })
})
