import { createHash } from 'node:crypto'
import type { Attempt, FailurePolicy } from './failure-limiter.js'

// Header values reach 16 KiB: long ids are hashed so that maxKeys bounds the bytes too. So are ids
// holding a NUL, which PostgreSQL text cannot store (the shared limiter's keys are text).
export const idKey = (id: string) =>
  id.length <= 128 && !id.includes('\u0000') ? id : `#${createHash('sha256').update(id).digest('base64url')}`

/** One counter's state. access/store/failures.ts keeps the same fields and takes the same steps in SQL. */
export interface Entry {
  /** Attempts counted in the current window: failures, and attempts still being checked. */
  count: number
  windowEnd: number
  lockedUntil: number
  /** Locks so far: the next lasts window × 2^strikes. */
  strikes: number
  /** Quiet until then and the key starts afresh (strikes included). */
  forgetAt: number
}

export interface Limits {
  windowMs: number
  maxLockMs: number
  pair: number
  address: number
  identity: number
  maxKeys: number
  knownMs: number
}

/**
 * The counters' column is a PostgreSQL integer: a limit times its factor past 2^31 - 1 made every
 * failure a 500 (TOKEN_FAILURE_LIMIT ≥ 21,474,837 × 100). A limit that high means "no limit" anyway.
 */
const INT_MAX = 2_147_483_647
const capped = (n: number) => Math.min(Math.max(1, Math.floor(n)), INT_MAX)

export function limitsOf(policy: FailurePolicy): Limits {
  const windowMs = policy.windowSeconds * 1000
  return {
    windowMs,
    maxLockMs: windowMs * (policy.maxBackoffFactor ?? 64),
    pair: capped(policy.limit),
    address: capped(policy.limit * (policy.addressFactor ?? 5)),
    identity: capped(policy.limit * (policy.clientFactor ?? 100)),
    maxKeys: policy.maxKeys ?? 100_000,
    knownMs: (policy.knownPairDays ?? 30) * 86_400_000,
  }
}

export interface CountedKey {
  key: string
  max: number
  /** A success forgets the key (the pair, the device), rather than only taking its own count back. */
  forgetOnSuccess: boolean
}

/**
 * The keys one attempt counts on. A proven device counts on itself alone. Otherwise: the address
 * (spraying many identities from one place), and with an identity the pair (the small limit) and
 * the identity everywhere (the ceiling on distributed guessing). Sorted: every process locks the
 * rows of one statement in the same order, so concurrent statements cannot deadlock.
 */
export function keysOf(attempt: Attempt, limits: Limits): { keys: CountedKey[]; identityKey?: string; pair?: string } {
  if (attempt.device !== undefined)
    return { keys: [{ key: `d:${idKey(attempt.device)}`, max: limits.pair, forgetOnSuccess: true }] }
  const address = idKey(attempt.address)
  const keys: CountedKey[] = [{ key: `a:${address}`, max: limits.address, forgetOnSuccess: false }]
  if (attempt.identity === undefined) return { keys }
  const id = idKey(attempt.identity)
  const pair = `p:${id}\n${address}`
  const identityKey = `c:${id}`
  keys.push({ key: pair, max: limits.pair, forgetOnSuccess: true })
  keys.push({ key: identityKey, max: limits.identity, forgetOnSuccess: false })
  keys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return { keys, identityKey, pair }
}

/** The limit of a key, from its kind. */
export function counted(key: string, limits: Limits): number {
  return key.startsWith('a:') ? limits.address : key.startsWith('c:') ? limits.identity : limits.pair
}

// Refused while the limit is filled by attempts still being checked: they end in well under a second,
// as a lock (a failure) or a count given back (a success).
const IN_FLIGHT_RETRY_MS = 1000

/**
 * One more attempt on a key: refused while it is locked or its window's count is at the limit,
 * else counted. A key forgotten (or new) starts afresh, an ended window starts a new one.
 */
export function admitted(
  previous: Entry | undefined,
  now: number,
  max: number,
  windowMs: number,
): { entry?: Entry; refusedUntil?: number } {
  let e: Entry
  if (!previous || previous.forgetAt <= now)
    e = { count: 0, windowEnd: now + windowMs, lockedUntil: 0, strikes: 0, forgetAt: 0 }
  else if (previous.lockedUntil > now) return { refusedUntil: previous.lockedUntil }
  else if (previous.windowEnd <= now) e = { ...previous, count: 0, windowEnd: now + windowMs }
  else e = { ...previous }
  if (e.count >= max) return { refusedUntil: Math.min(now + IN_FLIGHT_RETRY_MS, e.windowEnd) }
  e.count++
  e.forgetAt = Math.max(e.forgetAt, e.windowEnd)
  return { entry: e }
}

/**
 * A failed attempt: its count stays. When the window's count is at the limit (and the key not yet
 * locked), the key locks for window × 2^strikes, at most maxLockMs, and its count starts again.
 */
export function failed(e: Entry, now: number, max: number, limits: Limits): Entry {
  if (e.lockedUntil > now || e.forgetAt <= now || e.count < max) return e
  const lockMs = Math.min(limits.windowMs * 2 ** Math.min(e.strikes, 40), limits.maxLockMs)
  const windowEnd = now + lockMs + limits.windowMs
  return {
    count: 0,
    strikes: e.strikes + 1,
    lockedUntil: now + lockMs,
    windowEnd,
    forgetAt: Math.max(now + 2 * lockMs, windowEnd),
  }
}

/** A successful attempt gives its count back: the right answer is not a failure (earlier failures stay). */
export const tookBack = (e: Entry): Entry => ({ ...e, count: Math.max(0, e.count - 1) })
