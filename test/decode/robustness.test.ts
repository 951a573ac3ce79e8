import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeScan, DecodeError, type DecodeResult } from '../../src/decode/index.js'

const PIECES = [
  '[)>',
  '\u001e',
  '\u001d',
  '\u0004',
  '01',
  '05',
  '06',
  '07',
  '09',
  '96',
  '02',
  '420',
  '92',
  '00',
  '1Z',
  ']C1',
  ']U1',
  '(',
  ')',
  ' ',
  'UPSN',
  '3',
  '12345',
]

/** Scanner-like noise: envelope fragments, separators, digits and arbitrary characters. */
const noisyScan = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 6 })), { maxLength: 40 }).map((a) => a.join('')),
)

function wellFormed(r: DecodeResult): boolean {
  if (!['PLAIN', 'ISO15434', 'GS1'].includes(r.format)) return false
  if (r.trackingNumber !== null && (r.trackingNumber !== r.trackingNumber.toUpperCase() || /\s/.test(r.trackingNumber)))
    return false
  if (Object.values(r.fields).some((v) => typeof v !== 'string')) return false
  // checkDigitValid is null where the format defines no check (the contract's scan schema).
  for (const c of r.candidates)
    if ((typeof c.checkDigitValid !== 'boolean' && c.checkDigitValid !== null) || c.trackingNumber === '') return false
  // Ranked: no candidate that failed its check ahead of one that passed.
  const firstFailed = r.candidates.findIndex((c) => c.checkDigitValid === false)
  return firstFailed < 0 || r.candidates.slice(firstFailed).every((c) => c.checkDigitValid !== true)
}

describe('decodeScan on arbitrary input', () => {
  it('returns a well-formed result or throws DecodeError, nothing else', () => {
    // Found by a random run: a plain number that only formats without a check match.
    expect(wellFormed(decodeScan('12345059212345'))).toBe(true)
    // And one whose AI 00 held no SSCC: its "a" became the tracking number, in lower case.
    expect(wellFormed(decodeScan('(00)a'))).toBe(true)
    expect(wellFormed(decodeScan('(401)abc-1'))).toBe(true)
    fc.assert(
      fc.property(noisyScan, (s) => {
        try {
          return wellFormed(decodeScan(s))
        } catch (e) {
          return e instanceof DecodeError
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('a result is plain JSON data', () => {
    const r = decodeScan(
      '[)>\u001e01\u001d96841706672\u001d840\u001d001\u001d1Z12345675\u001dUPSN\u001d12345E\u001e\u0004',
    )
    expect(JSON.parse(JSON.stringify(r))).toEqual(r)
  })
})
