import { randomBytes } from 'node:crypto'

/**
 * Pickup codes (issue 17.4): what a recipient reads out or types at the desk. Six characters from
 * Crockford's base-32 alphabet without the digits 0 and 1 (Crockford already leaves out I, L, O
 * and U): no character can be taken for another when read aloud, handwritten or typed, and letters
 * and digits mix so a code is not mistaken for a number. 30^6 ≈ 729 million codes per
 * subscription: with ten thousand parcels waiting, one guess hits one of their codes with a chance
 * of about 1 in 73,000, and guesses are rate limited (pickups/service.ts).
 */
export const PICKUP_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ'
export const PICKUP_CODE_LENGTH = 6
export const PICKUP_CODE_PATTERN = `^[${PICKUP_CODE_ALPHABET}]{${PICKUP_CODE_LENGTH}}$`

/** Random bytes; injected so that tests can make codes they know. */
export type RandomSource = (size: number) => Uint8Array

/** A new random code. Bytes of 240 and above are drawn again, so that each character is uniform (256 = 8 × 30 + 16). */
export function newPickupCode(random: RandomSource = randomBytes): string {
  let out = ''
  while (out.length < PICKUP_CODE_LENGTH) {
    for (const b of random(PICKUP_CODE_LENGTH * 2)) {
      if (b >= 240) continue
      out += PICKUP_CODE_ALPHABET[b % 30]
      if (out.length === PICKUP_CODE_LENGTH) break
    }
  }
  return out
}

/**
 * A code as a person types it: any case, spaces and hyphens ignored (a code may be printed as
 * `K7Q-4MX`). Undefined when it cannot be a code at all.
 */
export function normalizePickupCode(input: string): string | undefined {
  const code = input.replace(/[\s-]/g, '').toUpperCase()
  return new RegExp(PICKUP_CODE_PATTERN).test(code) ? code : undefined
}
