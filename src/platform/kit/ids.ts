import { randomBytes } from 'node:crypto'

/**
 * Opaque, URL-safe, time-ordered identifiers (ULID layout: 48-bit milliseconds then 80 random
 * bits, Crockford base-32). Time order keeps btree inserts local; the random part makes ids
 * unguessable enough that a foreign id can only be learned, never enumerated.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

export type IdGenerator = (prefix: string) => string

export function encodeBase32(bytes: Uint8Array): string {
  let out = ''
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += CROCKFORD[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
    buffer &= (1 << bits) - 1
  }
  if (bits > 0) out += CROCKFORD[(buffer << (5 - bits)) & 31]
  return out
}

// Random bytes drawn 4 KiB at a time: one call per id made id generation the cost of bulk loads.
let pool = Buffer.alloc(0)
let poolOffset = 0
function random10(): Buffer {
  if (poolOffset + 10 > pool.length) {
    pool = randomBytes(4096)
    poolOffset = 0
  }
  const out = pool.subarray(poolOffset, poolOffset + 10)
  poolOffset += 10
  return out
}

export function newId(prefix: string, now: number = Date.now()): string {
  let time = ''
  let t = now
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time
    t = Math.floor(t / 32)
  }
  return `${prefix}${time}${encodeBase32(random10())}`.toLowerCase()
}

export const defaultIds: IdGenerator = (prefix) => newId(prefix)
