import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  codePointTable,
  fedexCheckDigit,
  gs1CheckDigit,
  iso7064Mod37_36CheckChar,
  isValidFedexCheckDigit,
  isValidGs1CheckDigit,
  isValidIso7064Mod37_36,
  isValidLuhn,
  isValidLuhnModN,
  isValidMod7,
  isValidS10,
  isValidUpsCheckDigit,
  luhnCheckDigit,
  luhnModNCheckChar,
  mod7CheckDigit,
  s10CheckDigit,
  upsCheckDigit,
  CROCKFORD_ALPHABET,
  decodeScan,
} from '../../src/decode/index.js'

const DIGITS = '0123456789'
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const str = (alphabet: string, min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: min, maxLength: max })
const CROCKFORD = codePointTable(CROCKFORD_ALPHABET)

interface Scheme {
  name: string
  /** A valid whole number, check character last unless `checkAt` says otherwise. */
  valid: fc.Arbitrary<string>
  isValid(whole: string): boolean
  /** The characters a check character can be replaced by. */
  alphabet: string
  checkAt?: (whole: string) => number
}

// Every check scheme the catalogue names (mod10 in its 1Z and GS1 weightings, mod 11 of FedEx, mod 7,
// S10, Luhn, MOD 37,36) plus mailroom's own; and the catalogue's serial transformations (prepend_if).
const SCHEMES: readonly Scheme[] = [
  {
    name: 'GS1 mod 10',
    valid: str(DIGITS, 1, 40).map((b) => `${b}${gs1CheckDigit(b)}`),
    isValid: isValidGs1CheckDigit,
    alphabet: DIGITS,
  },
  {
    name: 'UPS mod 10 (1Z, letters folded)',
    valid: str(ALNUM, 1, 20).map((b) => `${b}${upsCheckDigit(b)}`),
    isValid: isValidUpsCheckDigit,
    alphabet: DIGITS,
  },
  {
    name: 'FedEx mod 11 / mod 10',
    valid: str(DIGITS, 1, 20).map((b) => `${b}${fedexCheckDigit(b)}`),
    isValid: isValidFedexCheckDigit,
    alphabet: DIGITS,
  },
  {
    name: 'mod 7',
    valid: str(DIGITS, 1, 15).map((b) => `${b}${mod7CheckDigit(b)}`),
    isValid: isValidMod7,
    alphabet: DIGITS,
  },
  {
    name: 'Luhn',
    valid: str(DIGITS, 1, 20).map((b) => `${b}${luhnCheckDigit(b)}`),
    isValid: isValidLuhn,
    alphabet: DIGITS,
  },
  {
    name: 'ISO 7064 MOD 37,36',
    valid: str(ALNUM, 1, 30).map((b) => `${b}${iso7064Mod37_36CheckChar(b)}`),
    isValid: isValidIso7064Mod37_36,
    alphabet: ALNUM,
  },
  {
    name: 'Luhn mod 32 (mailroom)',
    valid: str(CROCKFORD_ALPHABET, 1, 20).map((b) => `${b}${luhnModNCheckChar(b, CROCKFORD)}`),
    isValid: (w) => isValidLuhnModN(w, CROCKFORD),
    alphabet: CROCKFORD_ALPHABET,
  },
  {
    name: 'UPU S10',
    valid: fc
      .tuple(str('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 2, 2), str(DIGITS, 8, 8), fc.constantFrom('US', 'GB', 'CA', 'DE', 'CN'))
      .map(([s, d, c]) => `${s}${d}${s10CheckDigit(d)}${c}`),
    isValid: isValidS10,
    alphabet: DIGITS,
    checkAt: () => 10,
  },
]

/** Every other character of the alphabet at the check position. */
function changedChecks(whole: string, scheme: Scheme): string[] {
  const at = scheme.checkAt?.(whole) ?? whole.length - 1
  return [...scheme.alphabet]
    .filter((c) => c !== whole.charAt(at))
    .map((c) => whole.slice(0, at) + c + whole.slice(at + 1))
}

describe.each(SCHEMES.map((s) => [s.name, s] as const))('check scheme %s', (_, scheme) => {
  it('a generated valid number validates; every change of its check character does not', () => {
    fc.assert(
      fc.property(
        scheme.valid,
        (whole) => scheme.isValid(whole) && changedChecks(whole, scheme).every((w) => !scheme.isValid(w)),
      ),
    )
  })
})

/** The decoder's verdict for `carrier` on a scan: true, false, null, or undefined when not read as it. */
const verdict = (scan: string, carrier: string) =>
  decodeScan(scan).candidates.find((c) => c.carrierId === carrier)?.checkDigitValid

describe('serial transformations (prepend_if) as the decoder applies them', () => {
  it('OnTrac: "4" (C) or "5" (D) goes before a serial not already starting with it', () => {
    fc.assert(
      fc.property(fc.constantFrom('C', 'D'), str(DIGITS, 13, 13), (letter, serial) => {
        const lead = letter === 'C' ? '4' : '5'
        const data = serial.startsWith(lead) ? serial : lead + serial
        const whole = `${letter}${serial}${upsCheckDigit(data)}`
        const wrong = [...DIGITS].filter((c) => c !== whole.charAt(14)).map((c) => whole.slice(0, 14) + c)
        return verdict(whole, 'ONTRAC') === true && wrong.every((w) => verdict(w, 'ONTRAC') === false)
      }),
    )
  })

  it('USPS legacy: "91" is counted by the check of a 20-digit number that lacks it', () => {
    fc.assert(
      fc.property(
        str(DIGITS, 19, 19).filter((s) => !s.startsWith('91')),
        (body) => {
          const whole = `${body}${gs1CheckDigit(`91${body}`)}`
          return verdict(whole, 'USPS') === true && verdict(`91${whole}`, 'USPS') === true
        },
      ),
    )
  })

  it('FedEx 34-digit barcodes: the check covers a 13-digit serial, the tracking number is its last twelve', () => {
    fc.assert(
      fc.property(str(DIGITS, 20, 20), str(DIGITS, 13, 13), (head, serial) => {
        const whole = `1${head.slice(1)}${serial}${fedexCheckDigit(serial)}`
        const r = decodeScan(whole)
        const wrong = `${whole.slice(0, 33)}${(Number(whole.charAt(33)) + 1) % 10}`
        return (
          r.candidates.some(
            (c) => c.carrierId === 'FEDEX' && c.checkDigitValid === true && c.trackingNumber === whole.slice(22),
          ) && decodeScan(wrong).candidates.every((c) => c.carrierId !== 'FEDEX' || c.checkDigitValid !== true)
        )
      }),
    )
  })
})

describe('formats without a check character', () => {
  it.each([
    'TBA502887274000',
    'SP029692510000920746',
    'YT2229521272164446',
    'GFUS01011884214464',
    'LTN74207623N1',
    'D576002440000001718010',
    'KYV009956937',
    '1LS717793482164',
    'C1004444443',
  ])('%s is reported with checkDigitValid null, never true', (n) => {
    const r = decodeScan(n)
    expect(r.candidates.length).toBeGreaterThan(0)
    for (const c of r.candidates) expect(c.checkDigitValid, c.carrierId).toBeNull()
  })
})
