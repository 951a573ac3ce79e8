import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  backoffCeiling,
  BASE_DELAY_MS,
  batchStreak,
  DISABLE_AFTER_FAILING_MS,
  failingTooLong,
  jitteredDelay,
  MAX_DELAY_MS,
  MIN_DELAY_MS,
  parseRetryAfter,
  planRetry,
  RETRY_AFTER_CAP_MS,
  RETRY_WINDOW_MS,
} from '../../src/webhooks/delivery/retry.js'

const T0 = new Date('2026-03-01T12:00:00.000Z')

describe('backoff ceiling', () => {
  it('starts at 5 s, doubles, and stops at 6 h', () => {
    const table = Array.from({ length: 16 }, (_, i) => backoffCeiling(i + 1))
    expect(table.slice(0, 5)).toEqual([5_000, 10_000, 20_000, 40_000, 80_000])
    expect(table[12]).toBe(5_000 * 2 ** 12)
    expect(table[13]).toBe(MAX_DELAY_MS)
    expect(backoffCeiling(1_000_000)).toBe(MAX_DELAY_MS)
  })

  it('never decreases and never exceeds the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (a) => {
        expect(backoffCeiling(a + 1)).toBeGreaterThanOrEqual(backoffCeiling(a))
        expect(backoffCeiling(a)).toBeLessThanOrEqual(MAX_DELAY_MS)
        expect(backoffCeiling(a)).toBeGreaterThanOrEqual(BASE_DELAY_MS)
      }),
    )
  })

  it('refuses attempt numbers that are not positive integers', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => backoffCeiling(bad)).toThrow(RangeError)
  })
})

describe('full jitter', () => {
  it('is uniform in [0, ceiling], floored at 1 s', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (a, r) => {
          const d = jitteredDelay(a, r)
          expect(d).toBeGreaterThanOrEqual(MIN_DELAY_MS)
          expect(d).toBeLessThanOrEqual(Math.max(MIN_DELAY_MS, backoffCeiling(a)))
          expect(d).toBe(Math.max(MIN_DELAY_MS, Math.floor(r * backoffCeiling(a))))
        },
      ),
    )
    expect(jitteredDelay(20, 0)).toBe(MIN_DELAY_MS)
    expect(jitteredDelay(20, 0.5)).toBe(MAX_DELAY_MS / 2)
  })

  it('refuses a random number outside [0, 1)', () => {
    for (const bad of [-0.1, 1, 2, Number.NaN]) expect(() => jitteredDelay(1, bad)).toThrow(RangeError)
  })
})

describe('retry plan', () => {
  it('gives up only once the window has passed', () => {
    const giveUpAt = new Date(T0.getTime() + RETRY_WINDOW_MS)
    expect(planRetry({ attempt: 30, now: new Date(giveUpAt.getTime() - 1), giveUpAt, random: 0.5 })).toEqual({
      retry: true,
      at: new Date(giveUpAt.getTime() - 1 + MAX_DELAY_MS / 2),
    })
    expect(planRetry({ attempt: 30, now: giveUpAt, giveUpAt, random: 0.5 })).toEqual({ retry: false })
  })

  it("uses the receiver's Retry-After instead of the jitter", () => {
    const giveUpAt = new Date(T0.getTime() + RETRY_WINDOW_MS)
    expect(planRetry({ attempt: 1, now: T0, giveUpAt, random: 0.99, retryAfterMs: 120_000 })).toEqual({
      retry: true,
      at: new Date(T0.getTime() + 120_000),
    })
  })

  it('keeps retrying for at least 72 hours, whatever the jitter and the receiver say, and then stops', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            r: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
            retryAfter: fc.option(fc.integer({ min: MIN_DELAY_MS, max: RETRY_AFTER_CAP_MS }), { freq: 4 }),
          }),
          { minLength: 400, maxLength: 400 },
        ),
        (draws) => {
          const giveUpAt = new Date(T0.getTime() + RETRY_WINDOW_MS)
          let now = T0
          let attempt = 1
          for (;;) {
            const d = draws[(attempt - 1) % draws.length]!
            const plan = planRetry({ attempt, now, giveUpAt, random: d.r, retryAfterMs: d.retryAfter ?? undefined })
            if (!plan.retry) break
            expect(plan.at.getTime()).toBeGreaterThan(now.getTime())
            expect(plan.at.getTime() - now.getTime()).toBeLessThanOrEqual(MAX_DELAY_MS)
            now = plan.at
            attempt++
          }
          // The last attempt happened at or after the end of the window, and not much later.
          expect(now.getTime() - T0.getTime()).toBeGreaterThanOrEqual(RETRY_WINDOW_MS)
          expect(now.getTime() - T0.getTime()).toBeLessThan(RETRY_WINDOW_MS + MAX_DELAY_MS)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('makes a few dozen attempts over the window on average, not thousands', () => {
    const giveUpAt = new Date(T0.getTime() + RETRY_WINDOW_MS)
    let seed = 42
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646
    let now = T0
    let attempts = 1
    for (
      let plan = planRetry({ attempt: 1, now, giveUpAt, random: random() });
      plan.retry;
      plan = planRetry({ attempt: attempts, now, giveUpAt, random: random() })
    ) {
      now = plan.at
      attempts++
    }
    expect(attempts).toBeGreaterThan(15)
    expect(attempts).toBeLessThan(80)
  })
})

describe('Retry-After', () => {
  it.each([
    ['120', 120_000],
    ['0', MIN_DELAY_MS],
    ['  30 ', 30_000],
    ['999999999', RETRY_AFTER_CAP_MS],
    ['Sun, 01 Mar 2026 12:05:00 GMT', 300_000],
    ['Sunday, 01-Mar-26 12:05:00 GMT', 300_000],
    ['Sun Mar  1 12:05:00 2026', 300_000],
    ['Sun, 01 Mar 2026 11:00:00 GMT', MIN_DELAY_MS],
    ['Sun, 01 Mar 2027 12:00:00 GMT', RETRY_AFTER_CAP_MS],
    ['-5', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['2026-03-01T12:05:00Z', undefined],
    ['', undefined],
  ])('%j → %s ms', (value, ms) => {
    expect(parseRetryAfter(value, T0)).toBe(ms)
  })

  it('is absent when the header is', () => {
    expect(parseRetryAfter(undefined, T0)).toBeUndefined()
  })

  it('always lands in [1 s, cap] for any number of seconds', () => {
    fc.assert(
      fc.property(fc.nat(), (s) => {
        const ms = parseRetryAfter(String(s), T0)!
        expect(ms).toBeGreaterThanOrEqual(MIN_DELAY_MS)
        expect(ms).toBeLessThanOrEqual(RETRY_AFTER_CAP_MS)
      }),
    )
  })
})

describe('disabling after continuous failure', () => {
  it('disables at exactly 5 days', () => {
    expect(failingTooLong(T0, new Date(T0.getTime() + DISABLE_AFTER_FAILING_MS - 1))).toBe(false)
    expect(failingTooLong(T0, new Date(T0.getTime() + DISABLE_AFTER_FAILING_MS))).toBe(true)
  })
})

describe('what a batch of answers says about a failure streak', () => {
  const at = (s: number) => new Date(T0.getTime() + s * 1000)

  it('failures alone continue the streak from the first of them', () => {
    expect(batchStreak([], [at(3), at(1), at(2)])).toEqual({
      succeeded: false,
      firstFailureAt: at(1),
      lastFailureAt: at(3),
    })
  })

  it('a success ends it; only failures from the last success on start a new one', () => {
    expect(batchStreak([at(2)], [at(1)])).toEqual({ succeeded: true, firstFailureAt: null, lastFailureAt: null })
    expect(batchStreak([at(1), at(3)], [at(2), at(4), at(5)])).toEqual({
      succeeded: true,
      firstFailureAt: at(4),
      lastFailureAt: at(5),
    })
    expect(batchStreak([at(1)], [at(1)])).toEqual({ succeeded: true, firstFailureAt: at(1), lastFailureAt: at(1) })
    expect(batchStreak([at(1)], [])).toEqual({ succeeded: true, firstFailureAt: null, lastFailureAt: null })
  })
})
