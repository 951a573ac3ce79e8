import { AppError } from '../kit/errors.js'
import type { Presence } from './presence.js'

export interface HeavyShareOptions {
  /** Of the process's heavy slots, the fraction one subscription may keep busy over time (1: no time share). */
  share: number
  /** How many heavy slots the process has (WorkSlots): the share is of all of them. */
  slots: number
  /** Slot-milliseconds a subscription may run at full speed before the share applies (the burst). */
  burstMs: number
  /** A wait longer than this is refused (429 with Retry-After) rather than held (0: no bound). */
  maxWaitMs: number
  /** What is shared, in the refusal: "heavy work (searches, exports, bulk operations)", "photo decodes". */
  what: string
  /** Who else is being served (shared by the process's time shares); its clock is this one's. */
  presence: Presence
  /** Waits (injected: the unit tests step time instead). */
  wait?: (ms: number) => Promise<unknown>
}

interface Bucket {
  /** Slot-milliseconds the subscription may still use at full speed; negative: what it owes. */
  credit: number
  /** Heavy turns of the subscription holding a slot now: each drains the bucket as long as it runs. */
  running: number
  at: number
}

/**
 * A subscription's share of the heavy slots over time (issue 14: while one tenant runs its most
 * expensive requests flat out, another's GETs keep within 2x of their idle p99).
 *
 * WorkSlots bounds how many heavy statements run at once, and TenantGate how many of them one
 * subscription runs. A subscription running searches back to back still keeps a slot busy all the
 * time, that is a database core, and everyone else's light requests share what is left: on two cores
 * that was half the machine, and a quiet tenant's latency doubled (measured, docs/limits.md).
 *
 * So heavy work is also accounted in time, as a token bucket (cgroups' cpu quota, in slot-time):
 * credit comes back at `share` of the process's slots and drains by one per slot the subscription
 * holds, for as long as it holds it; a subscription in debt waits before its next turn until the
 * debt is paid. Bursts up to `burstMs` run at full speed, so a clerk's occasional search never
 * waits. Draining while the turn runs (not charging it at the end) keeps concurrent turns exact.
 *
 * Work-conserving across tenants: the share applies only while another subscription is present
 * (made a request within the last second, Presence). A subscription alone on the process (a single-tenant
 * installation, a night-time export) is neither charged nor held back.
 *
 * Used for the heavy slots (searches, exports, bulk operations: http/tenant-gates.ts) and for the
 * label-photo decode threads (scan/scan-image.service.ts), one share each.
 *
 * In-process like WorkSlots: each process shares out its own slots. Memory: one bucket per
 * subscription that used heavy work, dropped once it is full again.
 */
export class HeavyShare {
  readonly #buckets = new Map<string, Bucket>()
  // Subscriptions holding slots now: settled whenever another subscription arrives (few: at most the slots).
  readonly #running = new Set<string>()
  readonly #rate: number
  readonly #now: () => number
  readonly #wait: (ms: number) => Promise<unknown>

  constructor(readonly options: HeavyShareOptions) {
    if (!(options.share > 0 && options.share <= 1)) throw new Error('HeavyShare: share must be in (0, 1]')
    this.#rate = options.share * options.slots
    this.#now = options.presence.now
    // A turn is charged for the time others were present during it: settled up to each arrival of another.
    options.presence.onArrival((arriving) => {
      for (const subId of this.#running) if (subId !== arriving) this.#advance(subId)
    })
    // The global timer, not node:timers/promises: a test on a fake clock steps it too.
    this.#wait = options.wait ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)))
  }

  /** Turns held back by the share, and for how long in all, since the process started (the metrics). */
  readonly held = { turns: 0, ms: 0 }

  /** Off when a subscription may use every slot all the time. */
  get enabled(): boolean {
    return this.options.share < 1
  }

  /**
   * Resolves when the subscription may start a heavy turn: at once unless it owes slot time while
   * others are present. A wait beyond `maxWaitMs` is refused with TENANT_BUSY and its Retry-After,
   * unless `bounded` is false (an export between two batches: a late batch beats a cut-off file).
   */
  async turn(subId: string, bounded = true): Promise<void> {
    if (!this.enabled) return
    const owed = -this.#advance(subId).credit
    if (owed <= 0 || !this.options.presence.othersPresent(subId)) return
    const waitMs = owed / this.#rate
    const { maxWaitMs } = this.options
    if (bounded && maxWaitMs > 0 && waitMs > maxWaitMs) {
      const seconds = Math.ceil(waitMs / 1000)
      throw new AppError('TENANT_BUSY', {
        description: `This subscription has used its share of ${this.options.what} while others are served; retry after ${seconds} s.`,
        additionalInfo: `limit: ${this.options.share} of the heavy slots over time`,
        headers: { 'retry-after': String(seconds) },
      })
    }
    this.held.turns++
    this.held.ms += waitMs
    await this.#wait(waitMs)
  }

  /** The subscription's turn holds a slot from now; the returned function ends it, once. */
  begin(subId: string): () => void {
    if (!this.enabled) return () => {}
    this.#advance(subId).running++
    this.#running.add(subId)
    let ended = false
    return () => {
      if (ended) return
      ended = true
      const bucket = this.#advance(subId)
      if (--bucket.running === 0) this.#running.delete(subId)
    }
  }

  /** The subscription's credit now (tests, metrics); the full burst for one not seen. */
  credit(subId: string): number {
    return this.#buckets.has(subId) ? this.#advance(subId).credit : this.options.burstMs
  }

  /** Subscriptions remembered (tests: memory follows the subscriptions in the middle of heavy work). */
  get remembered(): number {
    return this.#buckets.size
  }

  /**
   * The subscription's bucket, brought up to now (and kept in the map): refilled at the share,
   * drained by its running turns for the part of the time others were present (alone, it is not
   * charged), at most the burst. Presence starts at another's request (Presence.onArrival settles
   * the running turns just before) and ends PRESENT_MS after its last.
   */
  #advance(subId: string): Bucket {
    const now = this.#now()
    this.#sweep(now)
    let bucket = this.#buckets.get(subId)
    if (!bucket) this.#buckets.set(subId, (bucket = { credit: this.options.burstMs, running: 0, at: now }))
    const accompanied = Math.max(0, Math.min(now, this.options.presence.othersUntil(subId)) - bucket.at)
    bucket.credit = Math.min(
      this.options.burstMs,
      bucket.credit + (now - bucket.at) * this.#rate - accompanied * bucket.running,
    )
    bucket.at = now
    return bucket
  }

  #sweeps = 0
  /**
   * Every 1,024 advances, forgets the buckets that are idle and full again (amortised O(1) per
   * turn): the map holds only the subscriptions in the middle of heavy work, whatever their number.
   */
  #sweep(now: number): void {
    if (++this.#sweeps % 1024 !== 0) return
    for (const [subId, b] of this.#buckets)
      if (b.running === 0 && b.credit + (now - b.at) * this.#rate >= this.options.burstMs) this.#buckets.delete(subId)
  }
}
