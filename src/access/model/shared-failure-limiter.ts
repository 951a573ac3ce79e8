import type { Db } from '../../platform/db/database.js'
import type { Clock } from '../../platform/kit/clock.js'
import * as failures from '../store/failures.js'
import type { Admission, Attempt, FailureLimiter, FailurePolicy, Gate, Ticket } from './failure-limiter.js'
import { keysOf, limitsOf, type Limits } from './failure-steps.js'
import { retryOnConflict } from '../../platform/db/retry.js'

/**
 * The guessing limits in the database (table auth_failures), shared by every process of a
 * deployment: guessing through N processes is limited as through one (issue 16.2), and the count
 * of an attempt is taken before its secret is checked, in one atomic upsert (issue 26.4).
 * PostgreSQL rather than Redis: the deployment already shares it, and one more service to run and
 * secure would buy nothing here.
 *
 * Per attempt: one upsert of at most three rows to admit it; a success gives the count back in one
 * more statement; a failure writes again only when it filled a key (to lock it). A key known locked
 * is refused from this process's memory, without a statement, until the lock ends. Forgotten keys
 * are swept every `sweepEvery` admissions.
 */
export class DatabaseFailureLimiter implements FailureLimiter {
  readonly #limits: Limits
  /** Locks seen here: a lock only ever lasts until its end, so a refusal needs no statement. */
  readonly #locks = new Map<string, number>()
  /** Pairs known here to be known until then (refreshed in the database at most daily). */
  readonly #known = new Map<string, number>()
  #sinceSweep = 0

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly policy: FailurePolicy,
    private readonly sweepEvery = 1_000,
  ) {
    this.#limits = limitsOf(policy)
  }

  async admit(attempt: Attempt): Promise<Admission> {
    const now = this.clock.now().getTime()
    const { keys, identityKey, pair } = keysOf(attempt, this.#limits)
    this.#sweepNow(now)
    const cachedLock = Math.max(0, ...keys.filter((k) => k.key !== identityKey).map((k) => this.#locks.get(k.key) ?? 0))
    if (cachedLock > now) return { admitted: false, retryAfterSeconds: Math.ceil((cachedLock - now) / 1000) }
    const admittedCounts = await retryOnConflict(() => failures.admit(this.db, keys, now, this.#limits.windowMs))
    let refused = keys.filter((k) => !admittedCounts.has(k.key)).map((k) => k.key)
    // Refused only by the identity's ceiling, from a pair that succeeded before: it passes.
    if (refused.length === 1 && refused[0] === identityKey && pair && this.policy.trustKnownPairs)
      if ((await this.#knownUntil(pair, now)) > now) refused = []
    if (refused.length > 0) {
      // Not counted anywhere: the keys that took the count give it back.
      if (admittedCounts.size > 0)
        await retryOnConflict(() => failures.succeed(this.db, [], [...admittedCounts.keys()], undefined))
      return { admitted: false, retryAfterSeconds: await this.#retryAfter(refused, now) }
    }
    const ticket: Ticket = { counted: [], forget: [], pair: this.policy.trustKnownPairs ? pair : undefined }
    for (const k of keys) {
      const count = admittedCounts.get(k.key)
      if (count === undefined) continue
      ticket.counted.push({ key: k.key, reached: count >= k.max })
      if (k.forgetOnSuccess) ticket.forget.push(k.key)
    }
    return { admitted: true, ticket }
  }

  async failed(ticket: Ticket): Promise<void> {
    const full = ticket.counted.filter((c) => c.reached).map((c) => c.key)
    if (full.length === 0) return
    const now = this.clock.now().getTime()
    await retryOnConflict(() => failures.lock(this.db, full, now, this.#limits.windowMs, this.#limits.maxLockMs))
  }

  async succeeded(ticket: Ticket): Promise<void> {
    const now = this.clock.now().getTime()
    const giveBack = ticket.counted.filter((c) => !ticket.forget.includes(c.key)).map((c) => c.key)
    const forget = ticket.counted.filter((c) => ticket.forget.includes(c.key)).map((c) => c.key)
    let known: { key: string; until: number } | undefined
    // A pair's known mark is refreshed at most once a day: a client that always succeeds costs one write per success.
    if (ticket.pair && (this.#known.get(ticket.pair) ?? 0) < now + this.#limits.knownMs - 86_400_000) {
      known = { key: knownKey(ticket.pair), until: now + this.#limits.knownMs }
      this.#remember(this.#known, ticket.pair, known.until)
    }
    await retryOnConflict(() => failures.succeed(this.db, forget, giveBack, known))
  }

  async gate(attempt: Attempt): Promise<Gate> {
    const now = this.clock.now().getTime()
    const { keys, identityKey, pair } = keysOf(attempt, this.#limits)
    const cachedLock = Math.max(0, ...keys.filter((k) => k.key !== identityKey).map((k) => this.#locks.get(k.key) ?? 0))
    if (cachedLock > now) return { open: false, retryAfterSeconds: Math.ceil((cachedLock - now) / 1000) }
    const rows = await retryOnConflict(() =>
      failures.refusalOf(
        this.db,
        keys.map((k) => k.key),
        now,
      ),
    )
    let locked = rows.filter((r) => r.lockedUntil > now)
    if (locked.length === 1 && locked[0]!.key === identityKey && pair && this.policy.trustKnownPairs)
      if ((await this.#knownUntil(pair, now)) > now) locked = []
    if (locked.length > 0)
      return {
        open: false,
        retryAfterSeconds: await this.#retryAfter(
          locked.map((r) => r.key),
          now,
        ),
      }
    const forgettable = new Set(keys.filter((k) => k.forgetOnSuccess).map((k) => k.key))
    return { open: true, forget: rows.filter((r) => forgettable.has(r.key)).map((r) => r.key) }
  }

  async passed(attempt: Attempt, forget: string[]): Promise<void> {
    const { pair } = keysOf(attempt, this.#limits)
    const ticket: Ticket = { counted: [], forget: [], pair: this.policy.trustKnownPairs ? pair : undefined }
    const now = this.clock.now().getTime()
    // Nothing to clear and the pair's mark fresh: a right answer writes nothing.
    const stale = ticket.pair && (this.#known.get(ticket.pair) ?? 0) < now + this.#limits.knownMs - 86_400_000
    if (forget.length === 0 && !stale) return
    await this.succeeded({ ...ticket, counted: forget.map((key) => ({ key, reached: false })), forget })
  }

  async release(ticket: Ticket): Promise<void> {
    await retryOnConflict(() =>
      failures.succeed(
        this.db,
        [],
        ticket.counted.map((c) => c.key),
        undefined,
      ),
    )
  }

  async #knownUntil(pair: string, now: number): Promise<number> {
    const cached = this.#known.get(pair)
    if (cached !== undefined && cached > now) return cached
    const until = await failures.knownUntil(this.db, knownKey(pair), now)
    if (until > now) this.#remember(this.#known, pair, until)
    return until
  }

  async #retryAfter(refused: string[], now: number): Promise<number> {
    let until = now + 1000
    for (const r of await retryOnConflict(() => failures.refusalOf(this.db, refused, now))) {
      if (r.lockedUntil > now) {
        // The identity's lock is not cached: a known pair may still pass it.
        if (!r.key.startsWith('c:')) this.#remember(this.#locks, r.key, r.lockedUntil)
        until = Math.max(until, r.lockedUntil)
      }
    }
    return Math.ceil((until - now) / 1000)
  }

  #remember(map: Map<string, number>, key: string, until: number): void {
    map.delete(key)
    map.set(key, until)
    if (map.size > this.#limits.maxKeys) map.delete(map.keys().next().value!)
  }

  #sweepNow(now: number): void {
    if (++this.#sinceSweep < this.sweepEvery) return
    this.#sinceSweep = 0
    void failures.deleteForgotten(this.db, now).catch(() => {})
    for (const [k, until] of this.#locks) if (until <= now) this.#locks.delete(k)
  }
}

const knownKey = (pair: string) => `k:${pair}`
