import { codePointTable, isValidLuhnModN, luhnModNCheckChar } from './check-digits.js'

/**
 * mailroom's own tracking numbers: "MR" + 12 body characters + 1 check character. The body uses
 * Crockford's base-32 alphabet (no I, L, O, U: nothing a clerk can misread, and all of it is safe in
 * Code 128); the check is Luhn mod 32 over the body with the alphabet index as code point, which
 * catches every single-character substitution and most adjacent transpositions.
 */
export const MAILROOM_PREFIX = 'MR'
export const MAILROOM_BODY_LENGTH = 12
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

const CROCKFORD = codePointTable(CROCKFORD_ALPHABET)
const MAILROOM_SHAPE = /^MR[0-9A-HJKMNP-TV-Z]{13}$/

/** Check character for a 12-character Crockford body (upper case). Throws RangeError otherwise. */
export function mailroomCheckChar(body: string): string {
  if (body.length !== MAILROOM_BODY_LENGTH) {
    throw new RangeError(`mailroom number body must be ${MAILROOM_BODY_LENGTH} characters, got ${body.length}`)
  }
  return luhnModNCheckChar(body, CROCKFORD)
}

/** Whole number, e.g. "MR0123456789ABX". Case-insensitive; no Crockford aliasing of I/L/O. */
export function isValidMailroomNumber(s: string): boolean {
  const u = s.toUpperCase()
  return MAILROOM_SHAPE.test(u) && isValidLuhnModN(u.slice(2), CROCKFORD)
}
