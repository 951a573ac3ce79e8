import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  fedexCheckDigit,
  gs1CheckDigit,
  iso7064Mod37_36CheckChar,
  isValidFedexCheckDigit,
  isValidGs1CheckDigit,
  isValidIso7064Mod37_36,
  isValidLuhn,
  isValidMod7,
  isValidS10,
  isValidUpsCheckDigit,
  luhnCheckDigit,
  mod7CheckDigit,
  s10CheckDigit,
  upsCheckDigit,
} from '../../src/decode/index.js'

const DIGITS = '0123456789'
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const digitString = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...DIGITS), minLength: min, maxLength: max })
const alnumString = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...ALNUM), minLength: min, maxLength: max })

/** A number with one character replaced by a different one from `pool`. */
function mutate(whole: string, pool: string) {
  return fc
    .record({ i: fc.nat({ max: whole.length - 1 }), c: fc.constantFrom(...pool) })
    .filter(({ i, c }) => whole[i] !== c)
    .map(({ i, c }) => ({ i, from: whole[i] ?? '', to: c, mutated: whole.slice(0, i) + c + whole.slice(i + 1) }))
}

/** Any printable ASCII character, to show that characters outside a scheme never validate. */
const PRINTABLE = Array.from({ length: 95 }, (_, k) => String.fromCharCode(32 + k)).join('')

describe('GS1 mod 10 (GS1 General Specifications §7.9.1)', () => {
  it('matches published numbers', () => {
    // USPS Publication 199 style PIC and FedEx Ground numbers from carriers' examples.
    expect(isValidGs1CheckDigit('9400111201080805483016')).toBe(true)
    expect(isValidGs1CheckDigit('041441760228964')).toBe(true)
    expect(gs1CheckDigit('400638133393')).toBe(1) // EAN-13 4006381333931
    expect(gs1CheckDigit('629104150021')).toBe(3) // EAN-13 6291041500213
  })

  it('detects every single-character change (weight 3 is prime to 10)', () => {
    fc.assert(
      fc.property(
        digitString(1, 30).chain((body) => {
          const whole = body + gs1CheckDigit(body)
          return fc.tuple(fc.constant(whole), mutate(whole, PRINTABLE))
        }),
        ([whole, m]) => isValidGs1CheckDigit(whole) && !isValidGs1CheckDigit(m.mutated),
      ),
    )
  })

  it('rejects non-digits in the body', () => {
    expect(() => gs1CheckDigit('12A4')).toThrow(RangeError)
    expect(isValidGs1CheckDigit('')).toBe(false)
  })
})

/** UPS folds letters to digits ((ASCII − 63) mod 10) and weighs alternate positions 1 and 2. */
function upsFold(c: string): number {
  return /\d/.test(c) ? Number(c) : (c.charCodeAt(0) - 63) % 10
}

describe('UPS 1Z / OnTrac mod 10', () => {
  it('matches published numbers', () => {
    for (const n of ['1Z5R89390357567127', '1Z879E930346834440', '1Z410E7W0392751591', '1Z999AA10123456784']) {
      expect(isValidUpsCheckDigit(n.slice(2))).toBe(true)
    }
    expect(isValidUpsCheckDigit('C11031500001879')).toBe(true) // OnTrac
  })

  // The scheme is not a full guarantee: a letter and the digit it folds to are the same value, and
  // at weight-2 positions two values five apart give the same product mod 10. The property states
  // exactly which changes go unnoticed.
  it('misses a change only when the folded weighted values agree mod 10', () => {
    fc.assert(
      fc.property(
        alnumString(1, 20).chain((body) => {
          const whole = body + upsCheckDigit(body)
          return fc.tuple(fc.constant(whole), mutate(whole, ALNUM))
        }),
        ([whole, m]) => {
          const isCheck = m.i === whole.length - 1
          const weight = m.i % 2 === 0 ? 1 : 2
          const unnoticed = !isCheck && ((upsFold(m.to) - upsFold(m.from)) * weight) % 10 === 0
          return isValidUpsCheckDigit(whole) && isValidUpsCheckDigit(m.mutated) === unnoticed
        },
      ),
    )
  })
})

function fedexRemainder(data: string): number {
  const w = [1, 3, 7]
  let sum = 0
  for (let k = 0; k < data.length; k++) sum += Number(data[data.length - 1 - k]) * (w[k % 3] ?? 0)
  return sum % 11
}

describe('FedEx Express mod 11 (weights 1,3,7)', () => {
  it('matches published numbers', () => {
    for (const n of ['986578788855', '477179081230', '799531274483', '790535312317', '974367662710']) {
      expect(isValidFedexCheckDigit(n)).toBe(true)
    }
    expect(isValidFedexCheckDigit('996578788855')).toBe(false)
  })

  // Remainders 0 and 10 both give check digit 0, so a change that moves the remainder between them
  // goes unnoticed; every other single-digit change is caught (11 is prime, weights are below 11).
  it('misses a change only when the remainder moves between 0 and 10', () => {
    fc.assert(
      fc.property(
        digitString(1, 20).chain((body) => {
          const whole = body + fedexCheckDigit(body)
          return fc.tuple(fc.constant(whole), mutate(whole, DIGITS))
        }),
        ([whole, m]) => {
          const body = whole.slice(0, -1)
          const before = fedexRemainder(body)
          const after = m.i === whole.length - 1 ? -1 : fedexRemainder(m.mutated.slice(0, -1))
          const unnoticed = after >= 0 && before !== after && before % 10 === after % 10
          return isValidFedexCheckDigit(whole) && isValidFedexCheckDigit(m.mutated) === unnoticed
        },
      ),
    )
  })
})

describe('Luhn (Purolator)', () => {
  it('matches published numbers', () => {
    for (const n of ['320595463938', '320606146993', '287809468872', '331426749957']) expect(isValidLuhn(n)).toBe(true)
    expect(isValidLuhn('320595463939')).toBe(false)
  })

  it('detects every single-character change', () => {
    fc.assert(
      fc.property(
        digitString(1, 30).chain((body) => {
          const whole = body + luhnCheckDigit(body)
          return fc.tuple(fc.constant(whole), mutate(whole, PRINTABLE))
        }),
        ([whole, m]) => isValidLuhn(whole) && !isValidLuhn(m.mutated),
      ),
    )
  })
})

describe('mod 7 (DHL Express waybills)', () => {
  it('matches published numbers', () => {
    for (const n of ['3318810025', '8487135506', '1099255990', '3821724944', '73891051146'])
      expect(isValidMod7(n)).toBe(true)
    expect(isValidMod7('3318810010')).toBe(false)
  })

  // A digit changed by ±7 changes the number by a multiple of 7: the one kind of change mod 7 misses.
  it('misses a change only when a data digit moves by 7', () => {
    fc.assert(
      fc.property(
        digitString(1, 15).chain((body) => {
          const whole = body + mod7CheckDigit(body)
          return fc.tuple(fc.constant(whole), mutate(whole, DIGITS))
        }),
        ([whole, m]) => {
          const isCheck = m.i === whole.length - 1
          const unnoticed = !isCheck && Math.abs(Number(m.to) - Number(m.from)) === 7
          return isValidMod7(whole) && isValidMod7(m.mutated) === unnoticed
        },
      ),
    )
  })
})

function s10Remainder(serial: string): number {
  const w = [8, 6, 4, 2, 3, 5, 9, 7]
  let sum = 0
  for (let k = 0; k < 8; k++) sum += Number(serial[k]) * (w[k] ?? 0)
  return sum % 11
}

describe('UPU S10', () => {
  it('matches the standard example and carriers’ numbers', () => {
    // The worked example usually quoted for S10: AA 47312482 9 GB.
    expect(s10CheckDigit('47312482')).toBe(9)
    expect(isValidS10('AA473124829GB')).toBe(true)
    expect(isValidS10('RB123456785GB')).toBe(true)
    expect(isValidS10('EA123456785US')).toBe(true)
    expect(isValidS10('RB123456786US')).toBe(false)
  })

  // Remainders 0 and 6 both give check digit 5 (11 → 5 and 11 − 6). The letters (service indicator,
  // country) are outside the check altogether, so only the nine digits are mutated here.
  it('misses a digit change only when the remainder moves between 0 and 6', () => {
    fc.assert(
      fc.property(
        fc
          .tuple(fc.constantFrom('RA', 'EA', 'CP', 'LZ'), digitString(8, 8), fc.constantFrom('US', 'GB', 'CA', 'DE'))
          .chain(([svc, serial, cc]) => {
            const whole = `${svc}${serial}${s10CheckDigit(serial)}${cc}`
            return fc.tuple(
              fc.constant(whole),
              fc
                .record({ i: fc.integer({ min: 2, max: 10 }), c: fc.constantFrom(...DIGITS) })
                .filter(({ i, c }) => whole[i] !== c),
            )
          }),
        ([whole, { i, c }]) => {
          const mutated = whole.slice(0, i) + c + whole.slice(i + 1)
          const before = s10Remainder(whole.slice(2, 10))
          const after = i === 10 ? -1 : s10Remainder(mutated.slice(2, 10))
          const unnoticed =
            after >= 0 && new Set([before, after]).size === 2 && [before, after].every((r) => r === 0 || r === 6)
          return isValidS10(whole) && isValidS10(mutated) === unnoticed
        },
      ),
    )
  })
})

describe('ISO/IEC 7064 MOD 37,36 (DPD)', () => {
  it('matches DPD label numbers', () => {
    expect(iso7064Mod37_36CheckChar('008182709980000020033350276')).toBe('C')
    expect(iso7064Mod37_36CheckChar('008182709980000020045327276')).toBe('N')
  })

  it('detects every single-character change (hybrid system, ISO/IEC 7064 §6)', () => {
    fc.assert(
      fc.property(
        alnumString(1, 30).chain((body) => {
          const whole = body + iso7064Mod37_36CheckChar(body)
          return fc.tuple(fc.constant(whole), mutate(whole, PRINTABLE))
        }),
        ([whole, m]) => isValidIso7064Mod37_36(whole) && !isValidIso7064Mod37_36(m.mutated),
      ),
    )
  })
})
