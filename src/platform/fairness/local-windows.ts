import type { Db } from '../db/database.js'
import type { Clock } from '../kit/clock.js'
import * as windows from './windows-store.js'

/** A key's window as this process knows it. */
interface Entry {
  /** The shared window's count at the last sync (every process's hits up to then, ours included). */
  shared: number
  /** Hits this process admitted since, not yet added to the shared window. */
  pending: number
  /** The window's end: this process's estimate until the first sync, then the shared window's. */
  endsAt: number
  windowMs: number
  /** The last request on the key here, admitted or not (by the service's clock). */
  lastHitAt: number
}

/** How many keys one process remembers: a flood of addresses keeps only the most recent. */
const MAX_KEYS = 10_000
/** Windows of at most an hour: anything that ended an hour ago is of no use to anyone. */
const SWEEP_AFTER_MS = 3_600_000
const SWEEP_EVERY_MS = 600_000
/**
 * A key this process served within this long is re-read at each sync (a read, no write) so its
 * count includes the other processes' hits even while this process adds none; at most REFRESH_KEYS.
 */
const REFRESH_MS = 10_000
const REFRESH_KEYS = 1_000

/**
 * Fixed-window request counts kept in this process and reconciled with the shared windows
 * (`rate_limit_windows`) in the background (issue 26.7): a request never waits for, nor causes, a
 * database statement. Every `syncMs` (and only when this process counted something) one statement
 * adds every key's pending hits to its shared window and reads back the totals, so the writes are at
 * most one per `syncMs` per process whatever the load.
 *
 * The error bound: a process sees the other processes' hits at most one sync interval plus one
 * round trip late. Past a limit of `max`, a subscription can therefore be admitted at most the
 * requests it sends to the *other* processes within that time (one process alone: exact). A window
 * ends for each process by its own clock once the shared window's end is known.
 */
export class LocalWindows {
  readonly #entries = new Map<string, Entry>()
  #timer: NodeJS.Timeout | undefined
  #syncing: Promise<void> | undefined
  #lastSweep = 0
  #closed = false

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly syncMs: number,
  ) {}

  now(): number {
    return this.clock.now().getTime()
  }

  /**
   * Counts one hit on `key` if it stays within `max`: returns the count including it (above `max`:
   * refused, and not counted) and the ms left in its window. Synchronous, no I/O.
   */
  hit(key: string, windowMs: number, max: number): { current: number; ttl: number } {
    const now = this.now()
    let entry = this.#entries.get(key)
    if (!entry || entry.endsAt <= now) {
      // A window that ended takes its unsent hits with it: they belong to no window still counting.
      entry = { shared: 0, pending: 0, endsAt: now + windowMs, windowMs, lastHitAt: now }
      this.#entries.delete(key)
      if (this.#entries.size >= MAX_KEYS) this.#entries.delete(this.#entries.keys().next().value!)
      this.#entries.set(key, entry)
    }
    entry.lastHitAt = now
    const ttl = Math.max(0, entry.endsAt - now)
    const current = entry.shared + entry.pending + 1
    // A refusal is not counted: a client flooding past its limit costs neither memory nor a write.
    if (current > max) return { current, ttl }
    entry.pending++
    this.#schedule()
    return { current, ttl }
  }

  /** Sends the pending hits now (tests, and the last sync on close); resolves when the sync is done. */
  async sync(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    while (this.#syncing) await this.#syncing
    this.#syncing = this.#send().finally(() => (this.#syncing = undefined))
    await this.#syncing
  }

  /** Stops the background sync after sending what is pending (best effort: the database may be gone). */
  async close(): Promise<void> {
    this.#closed = true
    await this.sync().catch(() => {})
  }

  #schedule(): void {
    if (this.#timer || this.#closed) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      void this.sync().catch(() => {})
    }, this.syncMs).unref()
  }

  async #send(): Promise<void> {
    const now = this.now()
    const batch: windows.WindowHits[] = []
    const sent = new Map<string, { entry: Entry; amount: number }>()
    const reread = new Map<string, Entry>()
    for (const [key, entry] of this.#entries) {
      if (entry.endsAt <= now) {
        this.#entries.delete(key)
        continue
      }
      if (entry.pending === 0) {
        if (now - entry.lastHitAt <= REFRESH_MS && reread.size < REFRESH_KEYS) reread.set(`rate:${key}`, entry)
        continue
      }
      batch.push({ key: `rate:${key}`, windowMs: entry.windowMs, amount: entry.pending })
      sent.set(`rate:${key}`, { entry, amount: entry.pending })
      entry.pending = 0
    }
    let counts: Map<string, windows.WindowCount>
    try {
      counts = new Map([
        ...(batch.length > 0 ? await windows.hitMany(this.db, batch, now) : []),
        ...(reread.size > 0 ? await windows.peekMany(this.db, [...reread.keys()], now) : []),
      ])
    } catch (error) {
      // Kept for the next sync: a database that cannot take the counts now loses none of them.
      for (const { entry, amount } of sent.values()) entry.pending += amount
      this.#schedule()
      throw error
    }
    for (const [key, entry] of [...[...sent].map(([k, { entry }]) => [k, entry] as const), ...reread]) {
      const count = counts.get(key)
      if (!count) continue
      entry.shared = count.hits
      entry.endsAt = count.endsAt
    }
    // Keys served lately are re-read at the next sync too.
    if (reread.size > 0 || sent.size > 0) this.#schedule()
    if (now - this.#lastSweep >= SWEEP_EVERY_MS) {
      this.#lastSweep = now
      await windows.deleteEnded(this.db, now - SWEEP_AFTER_MS)
    }
  }
}
