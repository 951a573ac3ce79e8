import type { Clock } from '../shared/clock.js'

/**
 * Counts failed token requests per key (a client id, an address) in fixed windows. Once a key
 * reaches the limit, every request for it is refused until its window ends, even with the right
 * secret: otherwise an attacker could keep guessing and learn the answer from the first 200.
 * Kept per process: behind N processes the effective limit is N times higher, still a hard cap on
 * guessing a 256-bit secret.
 */
export class FailureLimiter {
  #windows = new Map<string, { count: number; resetAt: number }>()

  constructor(
    private readonly clock: Clock,
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Seconds until `key` may try again, or 0 when it may try now. */
  retryAfter(key: string): number {
    const w = this.#windows.get(key)
    const now = this.clock.now().getTime()
    if (!w) return 0
    if (w.resetAt <= now) {
      this.#windows.delete(key)
      return 0
    }
    return w.count >= this.limit ? Math.ceil((w.resetAt - now) / 1000) : 0
  }

  recordFailure(key: string): void {
    const now = this.clock.now().getTime()
    const w = this.#windows.get(key)
    if (!w || w.resetAt <= now) {
      if (this.#windows.size >= this.maxKeys) this.#evictExpired(now)
      this.#windows.set(key, { count: 1, resetAt: now + this.windowSeconds * 1000 })
    } else {
      w.count++
    }
  }

  reset(key: string): void {
    this.#windows.delete(key)
  }

  #evictExpired(now: number): void {
    for (const [k, w] of this.#windows) if (w.resetAt <= now) this.#windows.delete(k)
    // Still full of live windows (a flood of distinct keys): drop the oldest rather than grow.
    if (this.#windows.size >= this.maxKeys) this.#windows.delete(this.#windows.keys().next().value!)
  }
}
