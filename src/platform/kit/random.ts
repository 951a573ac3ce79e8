/** A source of uniform numbers in [0, 1). */
export type Rand = () => number

/**
 * mulberry32: small, fast and deterministic for a seed, so a data set (the seed command's
 * subscription, a benchmark's generated tracking numbers) can be rebuilt exactly. Not for secrets.
 */
export function mulberry32(seed: number): Rand {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
