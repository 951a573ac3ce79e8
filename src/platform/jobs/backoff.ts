/**
 * The one retry back-off of every job (webhook deliveries, emails): exponential with full jitter
 * (the delay is uniform in [0, ceiling], AWS Architecture Blog, "Exponential Backoff And Jitter"),
 * so a receiver coming back after an outage is not hit by every retry at the same instant. Pure:
 * a function of the attempt number and a random number, tested exhaustively.
 */
export interface Backoff {
  /** The first retry's delay ceiling; it doubles with each failed attempt. */
  baseMs: number
  /** The ceiling's ceiling. */
  maxMs: number
}

/** A floor so a jitter of ~0 never makes a hot loop against a failing receiver. */
export const MIN_DELAY_MS = 1_000

/** The upper bound of the delay after failed attempt number `attempt` (1-based). */
export function backoffCeiling(attempt: number, b: Backoff): number {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be a positive integer, got ${attempt}`)
  // 2^(attempt-1) overflows nothing below the cap: past 2^30 the cap applies anyway.
  return Math.min(b.maxMs, b.baseMs * 2 ** Math.min(attempt - 1, 30))
}

/** The jittered delay after failed attempt `attempt`, with `random` in [0, 1). */
export function backoffDelay(attempt: number, random: number, b: Backoff): number {
  if (!(random >= 0 && random < 1)) throw new RangeError(`random must be in [0, 1), got ${random}`)
  return Math.max(MIN_DELAY_MS, Math.floor(random * backoffCeiling(attempt, b)))
}
