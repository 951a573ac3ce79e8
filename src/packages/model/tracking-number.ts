import { createHmac } from 'node:crypto'
import { CROCKFORD_ALPHABET, MAILROOM_BODY_LENGTH, MAILROOM_PREFIX, mailroomCheckChar } from '../../decode/index.js'
import { invalid } from '../../platform/kit/errors.js'

/**
 * Tracking numbers: how one is normalised (as packages store it, as search and lookups match it),
 * which ones a package accepts, and the numbers this service issues (POST /api/v1/trackingNumbers).
 */

/** As stored: no spaces, upper case. */
export function normalizeTrackingNumber(raw: string): string {
  return raw.replace(/\s+/g, '').toUpperCase()
}

/** Printable ASCII, no space: what a stored number is made of (and what the lookups' byte ranges assume). */
export const PRINTABLE_ASCII = /^[\x21-\x7E]+$/
const TRACKING_SHAPE = /^[\x21-\x7E]{1,64}$/

/** The number a package is written with, normalised; a 400 on `field` when it is not 1 to 64 printable characters. */
export function checkTrackingNumber(raw: string, field: string): string {
  const tn = normalizeTrackingNumber(raw)
  if (!TRACKING_SHAPE.test(tn))
    throw invalid(field, 'trackingNumber must be 1 to 64 printable characters once spaces are removed.')
  return tn
}

/** The characters in reverse order: a suffix of a number is a prefix of its reverse (the reverse index). */
export const reversed = (v: string) => [...v].reverse().join('')

/**
 * Format of generated tracking numbers: "MR" + 12 Crockford base-32 characters + 1 check
 * character (Luhn mod 32), 15 characters, all safe in Code 128 and unambiguous to read aloud.
 *
 * The 60-bit body is a keyed pseudo-random permutation (a Feistel network over two 30-bit halves,
 * HMAC-SHA256 as round function) of a database sequence value. Being a permutation, distinct
 * sequence values give distinct numbers, forever; being keyed by the installation's master secret,
 * two installations issue different numbers, and a tenant who sees some numbers learns neither
 * how many others were issued in between nor what comes next.
 */
const BITS = 60n
const HALF = 30n
const HALF_MASK = (1n << HALF) - 1n
const MAX_SEQUENCE = (1n << BITS) - 1n
const ROUNDS = 8

/** The keyed permutation of [0, 2^60): sequence value → 60-bit body value. */
export function permuteSequence(key: Buffer, sequenceValue: bigint): bigint {
  if (sequenceValue < 1n || sequenceValue > MAX_SEQUENCE) throw new RangeError('sequence value out of range')
  let left = sequenceValue >> HALF
  let right = sequenceValue & HALF_MASK
  const block = Buffer.alloc(5)
  for (let round = 0; round < ROUNDS; round++) {
    block.writeUInt8(round, 0)
    block.writeUInt32BE(Number(right), 1)
    const f = BigInt(createHmac('sha256', key).update(block).digest().readUInt32BE(0)) & HALF_MASK
    ;[left, right] = [right, left ^ f]
  }
  return (left << HALF) | right
}

export function trackingNumberOf(bodyValue: bigint): string {
  let v = bodyValue
  let body = ''
  for (let i = 0; i < MAILROOM_BODY_LENGTH; i++) {
    body = CROCKFORD_ALPHABET[Number(v & 31n)]! + body
    v >>= 5n
  }
  return `${MAILROOM_PREFIX}${body}${mailroomCheckChar(body)}`
}

/**
 * Numbers issued before the keyed permutation were `sequence × LEGACY_MULTIPLIER mod 2^60`. A body
 * that scheme gave (or would have given) a sequence value below `sequenceValue` may already be on a
 * parcel: the caller draws again (a chance of about sequenceValue / 2^60), so no number repeats
 * across the change either.
 */
const LEGACY_MULTIPLIER = 0x9e3779b97f4a7c1n
const LEGACY_INVERSE = modularInverse(LEGACY_MULTIPLIER)

export function legacyBodyOf(sequenceValue: bigint): bigint {
  return (sequenceValue * LEGACY_MULTIPLIER) & MAX_SEQUENCE
}

export function mayBeLegacyNumber(bodyValue: bigint, sequenceValue: bigint): boolean {
  return ((bodyValue * LEGACY_INVERSE) & MAX_SEQUENCE) < sequenceValue
}

/** Inverse of an odd number modulo 2^60 (Newton's iteration doubles the correct bits each step). */
function modularInverse(odd: bigint): bigint {
  let inv = odd
  for (let i = 0; i < 6; i++) inv = (inv * (2n - odd * inv)) & MAX_SEQUENCE
  return inv
}
