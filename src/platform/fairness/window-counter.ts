import type { Db } from '../db/database.js'
import type { Clock } from '../kit/clock.js'
import * as windows from './windows-store.js'

/**
 * Fixed-window counters in the database, so every process of a deployment counts into the same
 * window (the API rate limit, the per-minute quotas). One atomic upsert per hit; ended windows are
 * swept now and then by the process that counts.
 */
export class WindowCounter {
  #sinceSweep = 0

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Hits between two sweeps of ended windows (per process). */
    private readonly sweepEvery = 5_000,
  ) {}

  async hit(key: string, windowMs: number, amount = 1): Promise<windows.WindowCount> {
    const now = this.clock.now().getTime()
    if (++this.#sinceSweep >= this.sweepEvery) {
      this.#sinceSweep = 0
      // Windows of at most an hour: anything ended an hour ago is of no use to anyone.
      void windows.deleteEnded(this.db, now - 3_600_000).catch(() => {})
    }
    return windows.hit(this.db, key, windowMs, now, amount)
  }

  /** Takes back hits counted in the window that ends at `endsAt` (a refused request's), if it is still the current one. */
  refund(key: string, endsAt: number, amount: number): Promise<void> {
    return windows.refund(this.db, key, endsAt, amount)
  }

  peek(key: string): Promise<windows.WindowCount> {
    return windows.peek(this.db, key, this.clock.now().getTime())
  }

  now(): number {
    return this.clock.now().getTime()
  }
}
