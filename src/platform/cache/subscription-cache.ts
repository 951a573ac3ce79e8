import type { Clock } from '../kit/clock.js'
import type { Drop } from './invalidations.js'

/**
 * A short-lived memo of reference data, one entry per subscription: what every package write
 * reads and almost nothing changes (the carrier catalogue, custom field definitions, sites).
 * Without it an add costs five round trips to the database instead of two.
 *
 * A change made through this process drops the subscription's entry at once (`invalidate`), so a
 * single process never answers from stale data. A change made by another process drops it when
 * that process's announcement arrives (`drop`, registered with the Invalidations: within
 * milliseconds on PostgreSQL), and within `ttlMs` whatever happens. A load that started before an
 * invalidation is not stored, so it cannot put back what the invalidation removed. `ttlMs` 0 turns
 * the memo off.
 */
export class SubscriptionCache<V> {
  readonly #entries = new Map<string, { at: number; value: V }>()
  /** The tick of each subscription's last invalidation (ticks only grow). */
  readonly #generations = new Map<string, number>()
  #tick = 0
  /** The tick of the last invalidation of everything: a floor under every subscription's generation. */
  #allAt = 0

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** For Invalidations.on: one subscription's entry, or (undefined) everything. */
  readonly drop: Drop = (subId) => (subId === undefined ? this.invalidateAll() : this.invalidate(subId))

  /** The fresh entry of the subscription, or undefined. */
  peek(subId: string): V | undefined {
    const hit = this.#entries.get(subId)
    if (!hit) return undefined
    if (this.clock.now().getTime() - hit.at >= this.ttlMs) {
      this.#entries.delete(subId)
      return undefined
    }
    return hit.value
  }

  /** The fresh entry, or the result of `load`, stored unless the subscription changed meanwhile. */
  async get(subId: string, load: () => Promise<V>): Promise<V> {
    const hit = this.peek(subId)
    if (hit !== undefined) return hit
    const generation = this.generation(subId)
    const at = this.clock.now().getTime()
    const value = await load()
    this.store(subId, value, generation, at)
    return value
  }

  /** The generation to pass to `store` for a load starting now. */
  generation(subId: string): number {
    return Math.max(this.#generations.get(subId) ?? 0, this.#allAt)
  }

  /** Keeps `value` as loaded under `generation` at time `at`, unless the subscription changed since. */
  store(subId: string, value: V, generation: number, at = this.clock.now().getTime()): void {
    if (this.ttlMs <= 0 || this.generation(subId) !== generation) return
    if (this.#entries.size >= this.maxEntries && !this.#entries.has(subId))
      this.#entries.delete(this.#entries.keys().next().value!)
    this.#entries.set(subId, { at, value })
  }

  /** Forgets the subscription's entry; loads already running are not stored. */
  invalidate(subId: string): void {
    this.#entries.delete(subId)
    // Bounded: past maxEntries, one invalidation of everything stands for all the remembered ones.
    if (this.#generations.size >= this.maxEntries && !this.#generations.has(subId)) return this.invalidateAll()
    this.#generations.set(subId, ++this.#tick)
  }

  /** Forgets every entry (announcements may have been missed); loads already running are not stored. */
  invalidateAll(): void {
    this.#entries.clear()
    this.#generations.clear()
    this.#allAt = ++this.#tick
  }
}
