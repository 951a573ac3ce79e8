import { createHash } from 'node:crypto'
import type { Clock } from '../shared/clock.js'

type Awaitable<T> = T | Promise<T>

/**
 * Failed client authentications, counted so that guessing a secret is bounded without letting
 * whoever knows a client id lock the real client out. Narrow on purpose: a store shared by
 * processes can implement it with three keyed counters.
 */
export interface FailureLimiter {
  /** Seconds until `clientId` may be tried from `address`, or 0 when it may be tried now. */
  retryAfter(clientId: string | undefined, address: string): Awaitable<number>
  recordFailure(clientId: string | undefined, address: string): Awaitable<void>
  recordSuccess(clientId: string, address: string): Awaitable<void>
}

export interface FailurePolicy {
  /** Failures of one client id from one address before that pair is locked. */
  limit: number
  windowSeconds: number
  /** One address may fail this many times `limit`, across client ids (a NAT of several integrations). */
  addressFactor?: number
  /** One client id may fail this many times `limit` from everywhere: the ceiling on distributed guessing. */
  clientFactor?: number
  /** Each lock of a key lasts twice the one before, up to this many windows. */
  maxBackoffFactor?: number
  /** Entries kept per counter; the least recently failed go first. */
  maxKeys?: number
}

interface Entry {
  count: number
  windowEnd: number
  lockedUntil: number
  /** Locks so far: the next lasts window × 2^strikes. */
  strikes: number
  /** Quiet until then and the key starts afresh (strikes included). */
  forgetAt: number
}

/**
 * Fixed windows per key with exponential back-off, in three counters: (client id, address) with
 * the small `limit`, the address with a larger one, the client id with a much larger ceiling. A
 * stranger's failures for a client id lock only the stranger's own pair and address, never the
 * real client's address, until a distributed attack reaches the ceiling. A locked key refuses
 * even the right secret, else a guesser would learn it from the first success.
 *
 * Memory is bounded (maxKeys entries per counter) and every call is O(1): each counter is a Map
 * kept in order of last failure, so eviction takes the first entry and expiry is checked on a
 * couple of the oldest per write, never by a scan. Kept per process: behind N processes the
 * effective limits are N times higher, still a hard cap on guessing a 256-bit secret.
 */
export class MemoryFailureLimiter implements FailureLimiter {
  readonly #pairs: Counter
  readonly #addresses: Counter
  readonly #clients: Counter

  constructor(private readonly clock: Clock, policy: FailurePolicy) {
    const windowMs = policy.windowSeconds * 1000
    const maxLockMs = windowMs * (policy.maxBackoffFactor ?? 64)
    const maxKeys = policy.maxKeys ?? 100_000
    this.#pairs = new Counter(policy.limit, windowMs, maxLockMs, maxKeys)
    this.#addresses = new Counter(policy.limit * (policy.addressFactor ?? 5), windowMs, maxLockMs, maxKeys)
    this.#clients = new Counter(policy.limit * (policy.clientFactor ?? 100), windowMs, maxLockMs, maxKeys)
  }

  retryAfter(clientId: string | undefined, address: string): number {
    const now = this.clock.now().getTime()
    let until = this.#addresses.lockedUntil(address, now)
    if (clientId !== undefined) until = Math.max(until, this.#pairs.lockedUntil(pairKey(clientId, address), now), this.#clients.lockedUntil(idKey(clientId), now))
    return until > now ? Math.ceil((until - now) / 1000) : 0
  }

  recordFailure(clientId: string | undefined, address: string): void {
    const now = this.clock.now().getTime()
    this.#addresses.fail(address, now)
    if (clientId === undefined) return
    this.#pairs.fail(pairKey(clientId, address), now)
    this.#clients.fail(idKey(clientId), now)
  }

  /** The pair starts afresh; the address and the client id keep their counts (a guesser's own client must not wash them). */
  recordSuccess(clientId: string, address: string): void {
    this.#pairs.forget(pairKey(clientId, address))
  }

  /** Entries held, per counter (for tests and the bench). */
  sizes(): { pairs: number; addresses: number; clients: number } {
    return { pairs: this.#pairs.size, addresses: this.#addresses.size, clients: this.#clients.size }
  }
}

// Header values reach 16 KiB: long ids are hashed so that maxKeys bounds the bytes too.
const idKey = (clientId: string) => (clientId.length <= 128 ? clientId : `#${createHash('sha256').update(clientId).digest('base64url')}`)
const pairKey = (clientId: string, address: string) => `${idKey(clientId)}\n${address}`

class Counter {
  readonly #entries = new Map<string, Entry>()

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxLockMs: number,
    private readonly maxKeys: number,
  ) {}

  get size(): number {
    return this.#entries.size
  }

  lockedUntil(key: string, now: number): number {
    const e = this.#entries.get(key)
    return e && e.forgetAt > now ? e.lockedUntil : 0
  }

  fail(key: string, now: number): void {
    let e = this.#entries.get(key)
    if (e) this.#entries.delete(key) // re-inserted below: the Map stays in order of last failure
    if (!e || e.forgetAt <= now) e = { count: 0, windowEnd: now + this.windowMs, lockedUntil: 0, strikes: 0, forgetAt: 0 }
    else if (e.windowEnd <= now) Object.assign(e, { count: 0, windowEnd: now + this.windowMs })
    e.count++
    if (e.count >= this.limit) {
      const lockMs = Math.min(this.windowMs * 2 ** e.strikes, this.maxLockMs)
      Object.assign(e, { count: 0, strikes: e.strikes + 1, lockedUntil: now + lockMs, windowEnd: now + lockMs + this.windowMs })
      e.forgetAt = now + 2 * lockMs
    }
    e.forgetAt = Math.max(e.forgetAt, e.windowEnd)
    this.#entries.set(key, e)
    this.#trim(now)
  }

  forget(key: string): void {
    this.#entries.delete(key)
  }

  /** The oldest entries go when they are forgotten anyway or when the counter is full: two looks, never a scan. */
  #trim(now: number): void {
    for (let i = 0; i < 2; i++) {
      const first = this.#entries.entries().next()
      if (first.done) return
      const [key, e] = first.value
      if (e.forgetAt > now && this.#entries.size <= this.maxKeys) return
      this.#entries.delete(key)
    }
  }
}
