import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeScan, upsCheckDigit } from '../../src/decode/index.js'
import { ups1ZServiceName, UPS_1Z_SERVICE_CODES, upsServiceClassName } from '../../src/decode/tables/services.js'
import { rebuildMaxiCodeTracking } from '../../src/decode/tracking/rules-ups.js'

const GS = '\u001d'
const RS = '\u001e'
const EOT = '\u0004'
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'

function oneZ(shipper: string, code: string, pkg: string): string {
  const data = `${shipper}${code}${pkg}`
  return `1Z${data}${upsCheckDigit(data)}`
}

describe('1Z service codes: only the 1Z table names them', () => {
  it('every two-character code has a name exactly when it is in the 1Z table', () => {
    const table = new Set(UPS_1Z_SERVICE_CODES)
    for (const a of ALNUM) {
      for (const b of ALNUM) {
        const code = a + b
        expect(ups1ZServiceName(code) !== undefined, code).toBe(table.has(code))
      }
    }
  })

  it.each(['07', '08', '11', '14', '54', '59', '65', '70', '82', '96'])(
    '%s is a UPS service code, not a 1Z one: no name',
    (code) => {
      expect(ups1ZServiceName(code)).toBeUndefined()
      const n = oneZ('5R8939', code, '0357567')
      expect(decodeScan(n).candidates[0]?.service).toEqual({ code })
    },
  )

  it('the 1Z and the class-of-service lists differ where they overlap in code', () => {
    expect(ups1ZServiceName('15')).toBe('Next Day Air Early A.M.')
    expect(upsServiceClassName('014')).toBe('Next Day Air Early')
    expect(ups1ZServiceName('66')).toBe('Worldwide Express')
    expect(upsServiceClassName('066')).toBeUndefined()
  })
})

describe('MaxiCode short tracking field → full 1Z number', () => {
  it('needs the short form and a six-character shipper number', () => {
    expect(rebuildMaxiCodeTracking('1Z12345675', '12345E')).toEqual([
      '1Z12345E0112345675',
      '1Z12345E4412345675',
      '1Z12345EA012345675',
    ])
    expect(rebuildMaxiCodeTracking('1Z12345675', '')).toEqual([])
    expect(rebuildMaxiCodeTracking('1Z12345675', '12345')).toEqual([])
    expect(rebuildMaxiCodeTracking('1Z1234567', '12345E')).toEqual([])
    expect(rebuildMaxiCodeTracking('1Z12345E0112345675', '12345E')).toEqual([])
  })

  const shipper = fc.string({ unit: fc.constantFrom(...ALNUM), minLength: 6, maxLength: 6 })
  const pkg = fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 7, maxLength: 7 })
  const code = fc.constantFrom(...UPS_1Z_SERVICE_CODES)

  it('the real number is always among the candidates, which are exactly the 1Z codes whose check holds', () => {
    fc.assert(
      fc.property(shipper, code, pkg, (s, c, p) => {
        const full = oneZ(s, c, p)
        const short = `1Z${full.slice(10)}`
        const rebuilt = rebuildMaxiCodeTracking(short, s)
        const expected = UPS_1Z_SERVICE_CODES.map((k) => `1Z${s}${k}${full.slice(10)}`).filter(
          (n) => n === oneZ(s, n.slice(8, 10), p),
        )
        return rebuilt.includes(full) && JSON.stringify(rebuilt) === JSON.stringify(expected)
      }),
    )
  })

  it('decoded: one fit is the tracking number; several keep the short field and are all candidates', () => {
    fc.assert(
      fc.property(shipper, code, pkg, fc.constantFrom('UPSN', ''), (s, c, p, scac) => {
        const full = oneZ(s, c, p)
        const short = `1Z${full.slice(10)}`
        const r = decodeScan(
          `[)>${RS}01${GS}96841706672${GS}840${GS}001${GS}${short}${GS}${scac}${GS}${s}${GS}089${RS}${EOT}`,
        )
        const numbers = r.candidates.map((x) => x.trackingNumber)
        if (!numbers.includes(full) || !r.candidates.every((x) => x.carrierId === 'UPS' && x.checkDigitValid))
          return false
        if (new Set(numbers).size !== numbers.length) return false
        if (r.carrier?.carrierId !== 'UPS') return false
        return numbers.length === 1 ? r.trackingNumber === full : r.trackingNumber === short
      }),
    )
  })
})
