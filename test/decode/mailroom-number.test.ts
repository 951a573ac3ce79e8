import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CROCKFORD_ALPHABET, decodeScan, isValidMailroomNumber, mailroomCheckChar } from '../../src/decode/index.js'

const body = fc.string({ unit: fc.constantFrom(...CROCKFORD_ALPHABET), minLength: 12, maxLength: 12 })
const PRINTABLE = Array.from({ length: 95 }, (_, k) => String.fromCharCode(32 + k)).join('')

function valueOf(c: string): number {
  return CROCKFORD_ALPHABET.indexOf(c)
}

describe('mailroom tracking numbers (MR + 12 Crockford base-32 + Luhn mod 32)', () => {
  it('computes the Luhn mod N check over the body', () => {
    // Worked by hand: from the right, every second code point is doubled and folded (q + r of /32).
    expect(mailroomCheckChar('000000000000')).toBe('0')
    expect(mailroomCheckChar('000000000001')).toBe('Y') // 1·2 = 2 → check 30 = 'Y'
    expect(mailroomCheckChar('000000000010')).toBe('Z') // 1·1 = 1 → check 31 = 'Z'
    expect(mailroomCheckChar('00000000000Z')).toBe('1') // 31·2 = 62 → 1 + 30 = 31 → check 1
  })

  it('a generated number validates, in either case', () => {
    fc.assert(
      fc.property(body, (b) => {
        const n = `MR${b}${mailroomCheckChar(b)}`
        return n.length === 15 && isValidMailroomNumber(n) && isValidMailroomNumber(n.toLowerCase())
      }),
    )
  })

  // Luhn mod N with an even N still doubles bijectively (2x and 2x − N + 1 cover the alphabet), so
  // every single substitution changes the sum: the guarantee is total.
  it('any single-character change does not validate', () => {
    fc.assert(
      fc.property(body, fc.nat({ max: 14 }), fc.constantFrom(...(CROCKFORD_ALPHABET + PRINTABLE)), (b, i, c) => {
        const n = `MR${b}${mailroomCheckChar(b)}`
        fc.pre(n[i]?.toUpperCase() !== c.toUpperCase())
        const mutated = n.slice(0, i) + c + n.slice(i + 1)
        return !isValidMailroomNumber(mutated)
      }),
    )
  })

  // Transposing two adjacent body characters is caught unless their doubled-and-folded values
  // happen to balance; the classic Luhn blind spot (here 0 ↔ Z) is the pair that does.
  it('catches adjacent transpositions except the pairs Luhn mod N cannot see', () => {
    const fold = (v: number) => Math.floor((2 * v) / 32) + ((2 * v) % 32)
    fc.assert(
      fc.property(body, fc.nat({ max: 10 }), (b, i) => {
        fc.pre(b[i] !== b[i + 1])
        const n = `MR${b}${mailroomCheckChar(b)}`
        const swapped = `MR${b.slice(0, i)}${b[i + 1]}${b[i]}${b.slice(i + 2)}${mailroomCheckChar(b)}`
        const x = valueOf(b[i] ?? '0')
        const y = valueOf(b[i + 1] ?? '0')
        const blind = (fold(x) + y - (x + fold(y))) % 32 === 0
        return isValidMailroomNumber(n) && isValidMailroomNumber(swapped) === blind
      }),
    )
  })

  it('refuses bodies of the wrong length or outside the alphabet', () => {
    expect(() => mailroomCheckChar('0123')).toThrow(RangeError)
    expect(() => mailroomCheckChar('0123456789AI')).toThrow(RangeError) // I is not Crockford
    expect(isValidMailroomNumber('MR0123456789AB')).toBe(false)
    expect(isValidMailroomNumber('XX0123456789ABC')).toBe(false)
  })

  it('decodes as the MAILROOM carrier', () => {
    const b = '0123456789AB'
    const n = `MR${b}${mailroomCheckChar(b)}`
    const r = decodeScan(n)
    expect(r.trackingNumber).toBe(n)
    expect(r.candidates).toEqual([
      { carrierId: 'MAILROOM', name: 'Mailroom (internal)', checkDigitValid: true, trackingNumber: n },
    ])
    const bad = `${n.slice(0, -1)}${n.endsWith('0') ? '1' : '0'}`
    expect(decodeScan(bad).candidates[0]).toMatchObject({ carrierId: 'MAILROOM', checkDigitValid: false })
  })
})
