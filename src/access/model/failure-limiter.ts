import { createHash } from 'node:crypto'
import type { Db } from '../../platform/db/database.js'
import type { Clock } from '../../platform/kit/clock.js'
import * as failures from '../store/failures.js'

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
 * couple of the oldest per write, never by a scan. Kept per process: for one process (PGlite);
 * behind several processes the DatabaseFailureLimiter below counts for all of them.
 */
export class MemoryFailureLimiter implements FailureLimiter {
  readonly #pairs: Counter
  readonly #addresses: Counter
  readonly #clients: Counter

  constructor(
    private readonly clock: Clock,
    policy: FailurePolicy,
  ) {
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
    if (clientId !== undefined)
      until = Math.max(
        until,
        this.#pairs.lockedUntil(pairKey(clientId, address), now),
        this.#clients.lockedUntil(idKey(clientId), now),
      )
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

// Header values reach 16 KiB: long ids are hashed so that maxKeys bounds the bytes too. So are ids
// holding a NUL, which PostgreSQL text cannot store (the shared limiter's keys are text).
const idKey = (clientId: string) =>
  clientId.length <= 128 && !clientId.includes('\u0000')
    ? clientId
    : `#${createHash('sha256').update(clientId).digest('base64url')}`
const pairKey = (clientId: string, address: string) => `${idKey(clientId)}\n${address}`

/**
 * One more failure on a key: a key forgotten (or new) starts afresh, an ended window starts a new
 * one, and the failure that reaches `limit` locks the key for window × 2^strikes (at most maxLockMs).
 * access/store/failures.ts does the same step in SQL.
 */
function failed(previous: Entry | undefined, now: number, limit: number, windowMs: number, maxLockMs: number): Entry {
  let e: Entry
  if (!previous || previous.forgetAt <= now)
    e = { count: 0, windowEnd: now + windowMs, lockedUntil: 0, strikes: 0, forgetAt: 0 }
  else if (previous.windowEnd <= now) e = { ...previous, count: 0, windowEnd: now + windowMs }
  else e = { ...previous }
  e.count++
  if (e.count >= limit) {
    const lockMs = Math.min(windowMs * 2 ** e.strikes, maxLockMs)
    Object.assign(e, {
      count: 0,
      strikes: e.strikes + 1,
      lockedUntil: now + lockMs,
      windowEnd: now + lockMs + windowMs,
    })
    e.forgetAt = now + 2 * lockMs
  }
  e.forgetAt = Math.max(e.forgetAt, e.windowEnd)
  return e
}

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
    const e = this.#entries.get(key)
    if (e) this.#entries.delete(key) // re-inserted below: the Map stays in order of last failure
    this.#entries.set(key, failed(e, now, this.limit, this.windowMs, this.maxLockMs))
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

/**
 * The same three counters in the database (table auth_failures), shared by every process of a
 * deployment: guessing through N processes is limited as through one (issue 16.2). PostgreSQL
 * rather than Redis: the deployment already shares it, failures are rare (a locked key is refused
 * before it costs a write), and one more service to run and secure would buy nothing here.
 *
 * Per credential check: one indexed read of at most three rows (retryAfter); a failure adds one
 * atomic upsert of three rows; a success deletes its pair only when the pair was seen failing
 * (remembered here in a bounded Map), so a client that never fails costs no write. Forgotten keys
 * are swept every `sweepEvery` failures; the table holds no more than the keys failing lately.
 */
export class DatabaseFailureLimiter implements FailureLimiter {
  readonly #windowMs: number
  readonly #maxLockMs: number
  readonly #limits: { pair: number; address: number; client: number }
  readonly #maxKeys: number
  /** Pairs known to have a row: a success must delete it. */
  readonly #failingPairs = new Set<string>()
  #sinceSweep = 0

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    policy: FailurePolicy,
    private readonly sweepEvery = 1_000,
  ) {
    this.#windowMs = policy.windowSeconds * 1000
    this.#maxLockMs = this.#windowMs * (policy.maxBackoffFactor ?? 64)
    this.#limits = {
      pair: policy.limit,
      address: policy.limit * (policy.addressFactor ?? 5),
      client: policy.limit * (policy.clientFactor ?? 100),
    }
    this.#maxKeys = policy.maxKeys ?? 100_000
  }

  async retryAfter(clientId: string | undefined, address: string): Promise<number> {
    const now = this.clock.now().getTime()
    const pair = clientId === undefined ? undefined : `p:${pairKey(clientId, address)}`
    const keys = pair === undefined ? [`a:${address}`] : [`a:${address}`, pair, `c:${idKey(clientId!)}`]
    const { lockedUntil, pairKnown } = await failures.lockOf(this.db, keys, pair, now)
    if (pair !== undefined && pairKnown) this.#remember(pair)
    return lockedUntil > now ? Math.ceil((lockedUntil - now) / 1000) : 0
  }

  async recordFailure(clientId: string | undefined, address: string): Promise<void> {
    const now = this.clock.now().getTime()
    const key = (k: string, maxFailures: number): failures.FailureKey => {
      const fresh = failed(undefined, now, maxFailures, this.#windowMs, this.#maxLockMs)
      return {
        key: k,
        maxFailures,
        fresh: {
          failures: fresh.count,
          windowEndsAt: fresh.windowEnd,
          lockedUntil: fresh.lockedUntil,
          strikes: fresh.strikes,
          forgetAt: fresh.forgetAt,
        },
      }
    }
    const keys = [key(`a:${address}`, this.#limits.address)]
    if (clientId !== undefined) {
      const pair = `p:${pairKey(clientId, address)}`
      keys.push(key(pair, this.#limits.pair), key(`c:${idKey(clientId)}`, this.#limits.client))
      this.#remember(pair)
    }
    if (++this.#sinceSweep >= this.sweepEvery) {
      this.#sinceSweep = 0
      void failures.deleteForgotten(this.db, now).catch(() => {})
    }
    await failures.recordFailures(this.db, keys, now, this.#windowMs, this.#maxLockMs)
  }

  async recordSuccess(clientId: string, address: string): Promise<void> {
    const pair = `p:${pairKey(clientId, address)}`
    if (!this.#failingPairs.delete(pair)) return
    await failures.forget(this.db, pair)
  }

  #remember(pair: string): void {
    if (this.#failingPairs.size >= this.#maxKeys) this.#failingPairs.delete(this.#failingPairs.values().next().value!)
    this.#failingPairs.add(pair)
  }
}
