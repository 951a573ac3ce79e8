import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeScan, fedexCheckDigit, isValidFedexCheckDigit, isValidLuhn } from '../../src/decode/index.js'

describe('ambiguity is reported, never hidden', () => {
  it('a 12-digit number valid for FedEx and Purolator lists both, valid ones first', () => {
    // 287809468872 passes both FedEx mod 11 and Luhn.
    const r = decodeScan('287809468872')
    expect(r.candidates.map((c) => [c.carrierId, c.checkDigitValid])).toEqual([
      ['FEDEX', true],
      ['PUROLATOR', true],
    ])
  })

  it('valid readings rank above invalid ones whatever the carrier', () => {
    const r = decodeScan('320595463938') // Purolator (Luhn) valid, FedEx mod 11 not
    expect(r.candidates.map((c) => [c.carrierId, c.checkDigitValid])).toEqual([
      ['PUROLATOR', true],
      ['FEDEX', false],
    ])
  })

  it('a USPS commercial IMpb also lists FedEx SmartPost, DHL eCommerce and, last, UPS Ground Saver', () => {
    const r = decodeScan('9261292700768711948021')
    expect(r.candidates.map((c) => c.carrierId)).toEqual(['USPS', 'FEDEX', 'DHL_ECOMMERCE', 'UPS'])
    expect(r.candidates.every((c) => c.checkDigitValid)).toBe(true)
    // Four carriers read it validly: the clerk chooses, none is stated.
    expect(r.carrier).toBeUndefined()
    expect(r.trackingNumber).toBe('9261292700768711948021')
  })

  it('a channel 93 IMpb lists DHL eCommerce, then UPS; channels 94, 95, 91 are USPS alone', () => {
    const r93 = decodeScan('9361289878700317633795')
    expect(r93.candidates.map((c) => c.carrierId)).toEqual(['USPS', 'DHL_ECOMMERCE', 'UPS'])
    expect(r93.carrier).toBeUndefined()
    for (const n of ['9400111201080805483016', '9505511069605048600624', '9101123456789000000013']) {
      const r = decodeScan(n)
      expect(
        r.candidates.map((c) => c.carrierId),
        n,
      ).toEqual(['USPS'])
      expect(r.carrier?.carrierId, n).toBe('USPS')
    }
  })

  it('a UPS tracking URL holding a 92 IMpb names UPS', () => {
    const r = decodeScan('https://www.ups.com/track?tracknum=9261292700768711948021')
    expect(r.candidates).toEqual([
      expect.objectContaining({ carrierId: 'UPS', checkDigitValid: true, trackingNumber: '9261292700768711948021' }),
    ])
    expect(r.carrier?.carrierId).toBe('UPS')
  })

  it('JJD licence plates read as DHL Express only: the catalogue holds no DHL Paket to name', () => {
    const r = decodeScan('JJD000390007883491632')
    expect(r.candidates.map((c) => c.carrierId)).toEqual(['DHL_EXPRESS'])
    expect(r.carrier?.carrierId).toBe('DHL_EXPRESS')
  })

  it('a 12-digit number starting 6–9 is no Purolator PIN (published PINs start 0–5)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...'6789'),
        fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 11, maxLength: 11 }),
        (first, rest) => {
          return decodeScan(first + rest).candidates.every((c) => c.carrierId !== 'PUROLATOR')
        },
      ),
    )
    expect(decodeScan('320595463938').candidates.map((c) => c.carrierId)).toContain('PUROLATOR')
  })

  it('16 digits: Canada Post (mod 10) and the FedEx airbill form (12 + form code) both appear', () => {
    const r = decodeScan('8077152042820402') // FedEx airbill barcode: 807715204282 + form 0402
    expect(r.candidates).toContainEqual(
      expect.objectContaining({ carrierId: 'FEDEX', trackingNumber: '807715204282', checkDigitValid: true }),
    )
    expect(r.candidates.some((c) => c.carrierId === 'CANADA_POST')).toBe(true)
  })

  it('a bare 12-digit number that fails every check is never a confident carrier', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 12, maxLength: 12 }), (n) => {
        // "420" + ZIP+4 is the USPS routing barcode, read as a destination (next test).
        fc.pre(!n.startsWith('420') && !isValidFedexCheckDigit(n) && !isValidLuhn(n))
        const r = decodeScan(n)
        return r.candidates.length > 0 && r.candidates.every((c) => !c.checkDigitValid)
      }),
    )
  })

  it('a bare "420" + ZIP+4 that fails every carrier check is a routing barcode: a destination, no carrier', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 9, maxLength: 9 }), (zip) => {
        const n = `420${zip}`
        fc.pre(!isValidFedexCheckDigit(n) && !isValidLuhn(n))
        const r = decodeScan(n)
        // "0000" is no ZIP+4 add-on (USPS assigns 0001–9999): such a code reads as the ZIP5 alone.
        const postalCode = zip.endsWith('0000') ? zip.slice(0, 5) : `${zip.slice(0, 5)}-${zip.slice(5)}`
        return r.candidates.length === 0 && r.destination?.postalCode === postalCode
      }),
    )
    // The counter-example CI once drew.
    expect(decodeScan('420030040600')).toMatchObject({ candidates: [], destination: { postalCode: '03004-0600' } })
    expect(decodeScan('420123450000')).toMatchObject({ candidates: [], destination: { postalCode: '12345' } })
  })

  it('every candidate of a random 10–34 digit number carries a verdict and no service is invented', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 10, maxLength: 34 }), (n) => {
        const r = decodeScan(n)
        // Only the 14-digit forms define no check (DHL eCommerce; a DPD parcel number without its check character).
        return r.candidates.every(
          (c) => (typeof c.checkDigitValid === 'boolean' || n.length === 14) && c.scac === undefined,
        )
      }),
    )
  })
})

describe('nothing is made up', () => {
  it('text matching no format has no candidates and no carrier', () => {
    for (const s of ['HELLO WORLD', 'ABCDEFGH', 'Order 12345 shipped', 'PO#998877']) {
      expect(decodeScan(s).candidates).toEqual([])
    }
  })

  it('a plain word without digits is not a tracking number', () => {
    expect(decodeScan('hello world').trackingNumber).toBeNull()
  })

  it('a short number names no carrier, yet is kept as what was scanned', () => {
    const r = decodeScan('12345')
    expect(r.candidates).toEqual([])
    expect(r.trackingNumber).toBe('12345')
  })

  it('a FedEx Express number with the wrong check is flagged, not dropped and not promoted', () => {
    const body = '98657878885'
    const wrong = body + String((fedexCheckDigit(body) + 1) % 10)
    const r = decodeScan(wrong)
    expect(r.candidates.find((c) => c.carrierId === 'FEDEX')?.checkDigitValid).toBe(false)
  })

  it('carrier SCAC appears only when the symbol carries one', () => {
    expect(decodeScan('1Z5R89390357567127').candidates[0]?.scac).toBeUndefined()
  })
})
