import { backoffCeiling as ceilingOf, backoffDelay, MIN_DELAY_MS } from '../../platform/jobs/backoff.js'

export { MIN_DELAY_MS }

/**
 * The retry schedule: pure functions of the attempt number, the time and a random number, so it is
 * tested exhaustively and the worker stays deterministic under an injected clock and random.
 *
 * The back-off is the one of every job (platform/jobs/backoff.ts: exponential, full jitter). Retries continue until at least the window (default RETRY_WINDOW_MS) after
 * the delivery's first attempt (longer than Stripe's 3 days with no fixed attempt count: a jittered
 * schedule guarantees a duration, not a number of tries).
 */
export const RETRY_WINDOW_MS = 72 * 3600_000
export const BASE_DELAY_MS = 5_000
export const MAX_DELAY_MS = 6 * 3600_000
/** A receiver's Retry-After is honoured up to this much (the same bound, named for its use). @alias */
export const RETRY_AFTER_CAP_MS = MAX_DELAY_MS
/** Continuous failure for this long disables the configuration. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600_000

/** The schedule's knobs (WEBHOOK_RETRY_* in src/app/config.ts, so operators and tests can shorten it). */
export interface RetrySchedule {
  /** The first retry's delay ceiling; it doubles with each failed attempt. */
  baseDelayMs: number
  /** The ceiling's ceiling. */
  maxDelayMs: number
  /** Retries go on until at least this long after the first attempt. */
  windowMs: number
}

export const DEFAULT_RETRY_SCHEDULE: Readonly<RetrySchedule> = Object.freeze({
  baseDelayMs: BASE_DELAY_MS,
  maxDelayMs: MAX_DELAY_MS,
  windowMs: RETRY_WINDOW_MS,
})

/** The upper bound of the delay after failed attempt number `attempt` (1-based). */
export function backoffCeiling(attempt: number, schedule: RetrySchedule = DEFAULT_RETRY_SCHEDULE): number {
  return ceilingOf(attempt, { baseMs: schedule.baseDelayMs, maxMs: schedule.maxDelayMs })
}

/** The jittered delay after failed attempt `attempt`, with `random` in [0, 1). */
export function jitteredDelay(
  attempt: number,
  random: number,
  schedule: RetrySchedule = DEFAULT_RETRY_SCHEDULE,
): number {
  return backoffDelay(attempt, random, { baseMs: schedule.baseDelayMs, maxMs: schedule.maxDelayMs })
}

/**
 * A Retry-After header (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) as milliseconds from
 * `now`, clamped to [MIN_DELAY_MS, RETRY_AFTER_CAP_MS]; undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined
  const v = value.trim()
  let ms: number
  if (/^\d+$/.test(v)) ms = Number(v) * 1000
  else {
    // RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms (asctime names no
    // zone but means GMT). Each starts with a weekday name; anything else is not an HTTP date.
    const asctime = /^[A-Za-z]{3} [A-Za-z]{3} +\d{1,2} \d\d:\d\d:\d\d \d{4}$/.test(v)
    if (!asctime && !/^[A-Za-z]{3,9}, /.test(v)) return undefined
    const at = Date.parse(asctime ? `${v} GMT` : v)
    if (Number.isNaN(at)) return undefined
    ms = at - now.getTime()
  }
  return Math.min(RETRY_AFTER_CAP_MS, Math.max(MIN_DELAY_MS, ms))
}

export type RetryPlan = { retry: true; at: Date } | { retry: false }

/**
 * After a failed attempt at `now`: retry (when) or give up. A receiver's Retry-After replaces the
 * jittered delay; the window is measured from `giveUpAt`, so the last attempt is at or after it.
 */
export function planRetry(input: {
  attempt: number
  now: Date
  giveUpAt: Date
  random: number
  retryAfterMs?: number
  schedule?: RetrySchedule
}): RetryPlan {
  if (input.now.getTime() >= input.giveUpAt.getTime()) return { retry: false }
  const delay = input.retryAfterMs ?? jitteredDelay(input.attempt, input.random, input.schedule)
  return { retry: true, at: new Date(input.now.getTime() + delay) }
}

/** Whether a configuration failing since `failingSince` is disabled by a failure at `now`. */
export function failingTooLong(failingSince: Date, now: Date): boolean {
  return now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS
}

/** A batch of attempts to one configuration, as its failure streak sees them. */
export interface BatchStreak {
  /** A 2xx among them: the streak so far ends. */
  succeeded: boolean
  /** The failures not before the last success (all of them, without one): they start or continue a streak. */
  firstFailureAt: Date | null
  lastFailureAt: Date | null
}

/**
 * What a batch says about a receiver: a success ends the streak, and only the failures from the
 * last success on count (answers sent together may come back in any order), so a receiver that
 * fails half the time is never "failing continuously".
 */
export function batchStreak(successes: Date[], failures: Date[]): BatchStreak {
  const lastSuccess = successes.length > 0 ? Math.max(...successes.map((d) => d.getTime())) : -Infinity
  const counted = failures.map((d) => d.getTime()).filter((t) => t >= lastSuccess)
  return {
    succeeded: successes.length > 0,
    firstFailureAt: counted.length > 0 ? new Date(Math.min(...counted)) : null,
    lastFailureAt: counted.length > 0 ? new Date(Math.max(...counted)) : null,
  }
}
