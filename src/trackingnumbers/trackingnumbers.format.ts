import { CROCKFORD_ALPHABET, MAILROOM_PREFIX, mailroomCheckChar } from '../decode/mailroom-number.js'

/**
 * Format of generated tracking numbers: "MR" + 12 Crockford base-32 characters + 1 check
 * character (Luhn mod 32), 15 characters, all safe in Code 128 and unambiguous to read aloud.
 * The body is a bijective scramble of a database sequence value (multiplication by an odd constant
 * modulo 2^60), so numbers never repeat yet consecutive ones do not look consecutive.
 */
const BITS = 60n
const MASK = (1n << BITS) - 1n
const MULTIPLIER = 0x9e3779b97f4a7c1n // odd, so invertible modulo 2^60

export function formatTrackingNumber(sequenceValue: bigint): string {
  if (sequenceValue < 1n || sequenceValue > MASK) throw new RangeError('sequence value out of range')
  let v = (sequenceValue * MULTIPLIER) & MASK
  let body = ''
  for (let i = 0; i < 12; i++) {
    body = CROCKFORD_ALPHABET[Number(v & 31n)]! + body
    v >>= 5n
  }
  return `${MAILROOM_PREFIX}${body}${mailroomCheckChar(body)}`
}
