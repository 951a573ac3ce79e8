import type { Clock } from '../../platform/kit/clock.js'
import { admitted, counted, failed, keysOf, limitsOf, tookBack, type Entry, type Limits } from './failure-steps.js'

type Awaitable<T> = T | Promise<T>

/**
 * One guess at a secret (a client secret, a password, a pickup code), as the limiter sees it: who
 * is guessed (`identity`), from where (`address`), and a proven factor if the caller has one.
 */
export interface Attempt {
  identity?: string
  address: string
  /**
   * A device proven by a signed cookie from an earlier successful sign-in (OWASP's device cookie):
   * its attempts count on the device alone, so no one else's failures can lock it out.
   */
  device?: string
}

/** The keys an admitted attempt was counted on, handed back with its outcome. */
export interface Ticket {
  /** Each counted key, and whether this attempt's count reached its limit (its failure then locks it). */
  counted: Array<{ key: string; reached: boolean }>
  /** Keys a success forgets (the pair, the device); the others only get this attempt's count back. */
  forget: string[]
  /** The pair to remember as known on success (trustKnownPairs). */
  pair?: string
}

export type Admission = { admitted: true; ticket: Ticket } | { admitted: false; retryAfterSeconds: number }

/** Whether a right answer may pass now; `forget`: the keys a pass clears (they hold earlier failures). */
export type Gate = { open: true; forget: string[] } | { open: false; retryAfterSeconds: number }

/**
 * Guessing limits, one atomic check-and-count per attempt: `admit` counts the attempt before the
 * secret is checked (so N concurrent wrong guesses get at most the limit checked, the rest refused),
 * then the caller reports the outcome: `failed` keeps the count (and locks a key it filled),
 * `succeeded` takes the count back (the right answer is not a failure).
 */
export interface FailureLimiter {
  admit(attempt: Attempt): Awaitable<Admission>
  failed(ticket: Ticket): Awaitable<void>
  succeeded(ticket: Ticket): Awaitable<void>
  /** The attempt was never checked (refused further on, or the check could not run): its counts go back, nothing else changes. */
  release(ticket: Ticket): Awaitable<void>
  /**
   * For secrets nobody can guess (client secrets: 256 random bits), checked first: may a right
   * answer pass now? Read-only: closed while a key is locked (the identity's ceiling passed by a
   * known pair). Wrong answers still go through admit/failed, so at most the limit of them is told.
   */
  gate(attempt: Attempt): Awaitable<Gate>
  /** A right answer let through by gate(): clears `forget`, marks the pair known; writes only what changes. */
  passed(attempt: Attempt, forget: string[]): Awaitable<void>
}

export interface FailurePolicy {
  /** Failures of one identity from one address (or of one device) before that key is locked. */
  limit: number
  windowSeconds: number
  /** One address may fail this many times `limit`, across identities (a NAT of several integrations). */
  addressFactor?: number
  /** One identity may fail this many times `limit` from everywhere: the ceiling on distributed guessing. */
  clientFactor?: number
  /** Each lock of a key lasts twice the one before, up to this many windows. */
  maxBackoffFactor?: number
  /** Entries kept per counter; the least recently failed go first. */
  maxKeys?: number
  /**
   * A pair (identity, address) that succeeded before passes the identity's global ceiling: an
   * attacker's distributed failures cannot lock a client out of the addresses it already uses.
   * Off where the identity's ceiling is the point (pickup codes: the subscription as a whole).
   */
  trustKnownPairs?: boolean
  /** How long a pair stays known after its last success. */
  knownPairDays?: number
}

const secondsUntil = (until: number, now: number) => Math.max(1, Math.ceil((until - now) / 1000))

/**
 * Per process, for one process (PGlite): every step is synchronous, so check-and-count is atomic by
 * construction. Memory is bounded (maxKeys entries, in order of last count, oldest evicted first).
 * Behind several processes the DatabaseFailureLimiter (shared-failure-limiter.ts) counts for all.
 */
export class MemoryFailureLimiter implements FailureLimiter {
  readonly #entries = new Map<string, Entry>()
  readonly #known = new Map<string, number>()
  readonly #limits: Limits

  constructor(
    private readonly clock: Clock,
    private readonly policy: FailurePolicy,
  ) {
    this.#limits = limitsOf(policy)
  }

  admit(attempt: Attempt): Admission {
    const now = this.clock.now().getTime()
    const { keys, identityKey, pair } = keysOf(attempt, this.#limits)
    const states = keys.map((k) => ({ k, step: admitted(this.#entries.get(k.key), now, k.max, this.#limits.windowMs) }))
    let refused = states.filter((s) => s.step.refusedUntil !== undefined)
    // Refused only by the identity's ceiling, from a pair that succeeded before: it passes.
    if (refused.length === 1 && refused[0]!.k.key === identityKey && pair && this.#isKnown(pair, now)) refused = []
    if (refused.length > 0)
      return {
        admitted: false,
        retryAfterSeconds: secondsUntil(Math.max(...refused.map((s) => s.step.refusedUntil!)), now),
      }
    const ticket: Ticket = { counted: [], forget: [], pair: this.policy.trustKnownPairs ? pair : undefined }
    for (const { k, step } of states) {
      if (step.refusedUntil !== undefined) continue // the identity passed by a known pair: not counted
      this.#put(k.key, step.entry!, now)
      ticket.counted.push({ key: k.key, reached: step.entry!.count >= k.max })
      if (k.forgetOnSuccess) ticket.forget.push(k.key)
    }
    return { admitted: true, ticket }
  }

  failed(ticket: Ticket): void {
    const now = this.clock.now().getTime()
    for (const c of ticket.counted) {
      if (!c.reached) continue
      const e = this.#entries.get(c.key)
      if (e) this.#entries.set(c.key, failed(e, now, this.#maxOf(c.key), this.#limits))
    }
  }

  succeeded(ticket: Ticket): void {
    for (const c of ticket.counted) {
      if (ticket.forget.includes(c.key)) this.#entries.delete(c.key)
      else {
        const e = this.#entries.get(c.key)
        if (e) this.#entries.set(c.key, tookBack(e))
      }
    }
    if (ticket.pair) {
      this.#known.delete(ticket.pair)
      this.#known.set(ticket.pair, this.clock.now().getTime() + this.#limits.knownMs)
      if (this.#known.size > this.#limits.maxKeys) this.#known.delete(this.#known.keys().next().value!)
    }
  }

  gate(attempt: Attempt): Gate {
    const now = this.clock.now().getTime()
    const { keys, identityKey, pair } = keysOf(attempt, this.#limits)
    const live = keys.map((k) => ({ k, e: this.#entries.get(k.key) })).filter(({ e }) => e && e.forgetAt > now)
    let locked = live.filter(({ e }) => e!.lockedUntil > now)
    if (locked.length === 1 && locked[0]!.k.key === identityKey && pair && this.#isKnown(pair, now)) locked = []
    if (locked.length > 0)
      return { open: false, retryAfterSeconds: secondsUntil(Math.max(...locked.map(({ e }) => e!.lockedUntil)), now) }
    return { open: true, forget: live.filter(({ k }) => k.forgetOnSuccess).map(({ k }) => k.key) }
  }

  passed(attempt: Attempt, forget: string[]): void {
    for (const key of forget) this.#entries.delete(key)
    const { pair } = keysOf(attempt, this.#limits)
    if (pair && this.policy.trustKnownPairs) this.succeeded({ counted: [], forget: [], pair })
  }

  release(ticket: Ticket): void {
    for (const c of ticket.counted) {
      const e = this.#entries.get(c.key)
      if (e) this.#entries.set(c.key, tookBack(e))
    }
  }

  /** Entries held (for tests and the bench). */
  get size(): number {
    return this.#entries.size
  }

  #isKnown(pair: string, now: number): boolean {
    return (this.#known.get(pair) ?? 0) > now
  }

  #maxOf(key: string): number {
    return counted(key, this.#limits)
  }

  #put(key: string, e: Entry, now: number): void {
    this.#entries.delete(key) // re-inserted: the Map stays in order of last count
    this.#entries.set(key, e)
    // The oldest entries go when they are forgotten anyway or when the counter is full: two looks, never a scan.
    for (let i = 0; i < 2; i++) {
      const first = this.#entries.entries().next()
      if (first.done) return
      const [k, old] = first.value
      if (old.forgetAt > now && this.#entries.size <= this.#limits.maxKeys) return
      this.#entries.delete(k)
    }
  }
}
