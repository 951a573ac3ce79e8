import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodePercentEncoding, PERCENT_ENCODED_AIS } from '../../src/decode/gs1/percent.js'

/** GS1 AI encodable character set 82, less "%": what an encoder may leave as is. */
const CSET82_NO_PERCENT = /[!"&'()*+,\-./0-9:;<=>?A-Z_a-z]/

/** Percent-encodes as an encoder following the GS1 rule would: UTF-8 bytes of anything outside CSET 82, and "%". */
function encode(text: string): string {
  let out = ''
  for (const ch of text) {
    if (CSET82_NO_PERCENT.test(ch)) out += ch
    else for (const b of new TextEncoder().encode(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

describe('GS1 percent-encoding (pcenc)', () => {
  it('the pcenc AIs of the GS1 Barcode Syntax Dictionary, and only those', () => {
    const expected = [
      '4300',
      '4301',
      '4302',
      '4303',
      '4304',
      '4305',
      '4306',
      '4310',
      '4311',
      '4312',
      '4313',
      '4314',
      '4315',
      '4316',
      '4320',
    ]
    expect([...PERCENT_ENCODED_AIS].sort()).toEqual(expected)
    for (const ai of ['4307', '4308', '4309', '4317', '4318', '4319', '4321', '420', '421', '400'])
      expect(PERCENT_ENCODED_AIS.has(ai), ai).toBe(false)
  })

  it.each([
    ['JANE DOE', 'JANE DOE'],
    ['Jos%C3%A9', 'José'],
    ['%E5%B1%B1%E7%94%B0', '山田'],
    ['%F0%9F%93%A6 box', '📦 box'],
    ['a%20b', 'a b'],
    ['lower%c3%a9case', 'lowerécase'],
    ['%25', '%'],
    ['%2525', '%25'],
    ['%00', '\u0000'],
    ['', ''],
  ])('%j → %j', (encoded, text) => {
    expect(decodePercentEncoding(encoded)).toBe(text)
  })

  it.each(['%', '50%', '%4', '%G0', '%0G', 'ab%zz', '%C3', '%FF', '%C3%28', '%E2%82'])(
    'malformed or not UTF-8, kept as read: %j',
    (value) => {
      expect(decodePercentEncoding(value)).toBe(value)
    },
  )

  it('decoding undoes encoding, for any text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        (text) => decodePercentEncoding(encode(text)) === text,
      ),
    )
  })

  it('text without "%" is returned unchanged', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 70 }).filter((s) => !s.includes('%')),
        (s) => decodePercentEncoding(s) === s,
      ),
    )
  })
})
