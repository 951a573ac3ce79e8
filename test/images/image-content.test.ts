import { describe, expect, it } from 'vitest'
import { decodeStrict, parseDataUrl } from '../../src/images/model/image-content.js'

const base64Of = (s: string) => {
  const parsed = parseDataUrl(`data:image/png;base64,${s}`)
  if (!parsed.ok) return parsed.problem
  return decodeStrict(parsed.base64) ?? 'bad_base64'
}

describe('strict base64 of a data URL', () => {
  it('takes canonical base64, padded or not', () => {
    for (const bytes of [Buffer.from([1]), Buffer.from([1, 2]), Buffer.from([1, 2, 3]), Buffer.alloc(1000, 0xfb)]) {
      expect(base64Of(bytes.toString('base64'))).toEqual(bytes)
    }
    expect(base64Of('iVBO\r\nRw0K')).toEqual(Buffer.from('iVBORw0K', 'base64'))
  })

  it('refuses every character outside the alphabet, base64url, padding inside, and a length not a multiple of 4', () => {
    for (const s of [
      'iVBOR!!w0KGgo=',
      'abc',
      'A===',
      'AA=A',
      'ab-_',
      'ab+/\tAAA',
      'abcé',
      'ab.d',
      '////====',
      'AAAA\u0000AAA',
    ]) {
      expect(base64Of(s), JSON.stringify(s)).toBe('bad_base64')
    }
  })
})
