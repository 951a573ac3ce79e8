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
  /** Reported from this many hits in the window (this process's view): ceil(max / processes). */
  reportFrom: number
}

/** What LocalWindows takes of the rate-limit settings. */
export interface WindowSettings {
  syncMs: number
  /** The most API processes sharing one database (RATE_LIMIT_PROCESSES). */
  processes: number
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
 * database statement, and a read-only load below the limits writes nothing at all.
 *
 * A key's hits are reported only once this process's view of its window (the shared count last
 * read plus its own unreported hits) reaches the key's reporting threshold, `ceil(max / processes)`
 * with `processes` the most API processes one database serves (RATE_LIMIT_PROCESSES): below it,
 * this process alone could not take the subscription past its limit, so its hits stay local. From
 * there, every `syncMs` one statement adds every such key's pending hits to its shared window and
 * reads back the totals: at most one write per `syncMs` per process whatever the load. Keys served
 * lately and below their threshold are re-read (a read, never a write) so the other processes'
 * reports count here too.
 *
 * The error bound, for a subscription limited to `max` per window over at most `processes`
 * processes: each other process holds at most `threshold − 1` unreported hits, and a report reaches
 * the others one sync interval plus one round trip late. So past `max` it can be admitted at most
 * `(processes − 1) × (threshold − 1)` (under `max`) plus the requests it sends to the other
 * processes within one sync interval: in all less than twice its limit, and exact with one process.
 * With more processes than configured, each one more adds up to `threshold − 1`. A window ends for
 * each process by its own clock once the shared window's end is known.
 *
 * Without a database (`db` undefined: the memory store, one process) the counts are only local.
 */
export class LocalWindows {
  readonly #entries = new Map<string, Entry>()
  #timer: NodeJS.Timeout | undefined
  #syncing: Promise<void> | undefined
  #lastSweep = 0
  /** Whether this process reported a window since its last sweep. */
  #wrote = false
  #closed = false

  readonly #syncMs: number
  readonly #processes: number

  constructor(
    private readonly db: Db | undefined,
    private readonly clock: Clock,
    settings: WindowSettings,
  ) {
    this.#syncMs = settings.syncMs
    this.#processes = Math.max(1, settings.processes)
  }

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
      entry = { shared: 0, pending: 0, endsAt: now + windowMs, windowMs, lastHitAt: now, reportFrom: 1 }
      this.#entries.delete(key)
      if (this.#entries.size >= MAX_KEYS) this.#entries.delete(this.#entries.keys().next().value!)
      this.#entries.set(key, entry)
    }
    entry.lastHitAt = now
    entry.reportFrom = Math.ceil(max / this.#processes)
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
    if (this.#timer || this.#closed || this.db === undefined) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      void this.sync().catch(() => {})
    }, this.#syncMs).unref()
  }

  async #send(): Promise<void> {
    const db = this.db
    if (db === undefined) return
    const now = this.now()
    const batch: windows.WindowHits[] = []
    const sent = new Map<string, { entry: Entry; amount: number }>()
    const reread = new Map<string, Entry>()
    for (const [key, entry] of this.#entries) {
      if (entry.endsAt <= now) {
        this.#entries.delete(key)
        continue
      }
      // Nothing to report, or too little to matter yet: only read what the other processes reported.
      if (entry.pending === 0 || entry.shared + entry.pending < entry.reportFrom) {
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
        ...(batch.length > 0 ? await windows.hitMany(db, batch, now) : []),
        ...(reread.size > 0 ? await windows.peekMany(db, [...reread.keys()], now) : []),
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
    if (sent.size > 0) this.#wrote = true
    // Ended windows are swept by a process that writes windows, so a read-only load deletes nothing either.
    if (this.#wrote && now - this.#lastSweep >= SWEEP_EVERY_MS) {
      this.#lastSweep = now
      this.#wrote = false
      await windows.deleteEnded(db, now - SWEEP_AFTER_MS)
    }
  }
}
