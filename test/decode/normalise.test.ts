import { describe, expect, it } from 'vitest'
import { decodeScan, DecodeError, MAX_SCAN_LENGTH } from '../../src/decode/index.js'
import { normaliseScan } from '../../src/decode/normalise.js'

describe('scanner output normalisation', () => {
  it.each([
    [']C1', true],
    [']C0', false],
    [']d2', true],
    [']d1', false],
    [']Q3', true],
    [']Q1', false],
    [']e0', true],
    [']L2', false],
    [']U1', false],
    [']E0', false],
    [']I0', false],
  ])('AIM symbology identifier %s is removed and remembered (GS1: %s)', (aim, gs1) => {
    const n = normaliseScan(`${aim}1234`)
    expect(n).toEqual({ text: '1234', aim, gs1 })
  })

  it('the AIM identifier is reported in the fields', () => {
    const r = decodeScan(']C01Z5R89390357567127')
    expect(r.fields.aim).toBe(']C0')
    expect(r.trackingNumber).toBe('1Z5R89390357567127')
    expect(decodeScan(']I03318810025').candidates[0]?.carrierId).toBe('DHL_EXPRESS')
  })

  it('strips surrounding whitespace, CR/LF and NUL but keeps inner control characters', () => {
    expect(normaliseScan('\u0000  ]C1\u001d42012345\r\n')).toEqual({ text: '42012345', aim: ']C1', gs1: true })
    expect(normaliseScan('A\u001dB\u001e').text).toBe('A\u001dB\u001e')
  })

  it('a leading GS is FNC1 in first position', () => {
    expect(normaliseScan('\u001d0012345')).toEqual({ text: '0012345', gs1: true })
  })

  it('control characters around a 1D number are ignored', () => {
    expect(decodeScan('\u001d1Z5R89390357567127\u0004').trackingNumber).toBe('1Z5R89390357567127')
  })

  it('tracking numbers typed with spaces or hyphens, in lower case', () => {
    expect(decodeScan('9400 1112 0108 0805 4830 16').trackingNumber).toBe('9400111201080805483016')
    expect(decodeScan('tba-502887-274000').trackingNumber).toBe('TBA502887274000')
  })
})

describe('DecodeError', () => {
  it.each(['', '   ', '\r\n', '\u001d\u001e\u0004', ']C1', ']d2 \r'])('empty scan %j', (raw) => {
    expect(() => decodeScan(raw)).toThrow(DecodeError)
    try {
      decodeScan(raw)
    } catch (e) {
      expect(e).toBeInstanceOf(DecodeError)
      expect((e as DecodeError).code).toBe('EMPTY_SCAN')
      expect((e as DecodeError).message).toBe('The scan is empty.')
    }
  })

  it('no letters or digits at all is unreadable', () => {
    expect(() => decodeScan('-- // ..')).toThrow(expect.objectContaining({ code: 'UNREADABLE_SCAN' }))
  })

  it('input longer than any symbol is unreadable', () => {
    expect(() => decodeScan('1'.repeat(MAX_SCAN_LENGTH + 1))).toThrow(
      expect.objectContaining({ code: 'UNREADABLE_SCAN' }),
    )
  })

  it('non-string input is refused with a DecodeError, not a TypeError', () => {
    expect(() => decodeScan(undefined as unknown as string)).toThrow(DecodeError)
  })
})

describe('symbologies that never carry a tracking number', () => {
  it('EAN/UPC (AIM ]E…) is reported as a product code with no carrier', () => {
    const r = decodeScan(']E0036000291452')
    expect(r.candidates).toEqual([])
    expect(r.trackingNumber).toBeNull()
    expect(r.fields).toEqual({ aim: ']E0', gtin: '036000291452' })
  })
})
