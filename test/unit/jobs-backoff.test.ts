import { describe, expect, it } from 'vitest'
import { backoffCeiling, backoffDelay, MIN_DELAY_MS } from '../../src/platform/jobs/backoff.js'
import { leaseMs } from '../../src/platform/jobs/lease.js'

// The one back-off of every job (webhook deliveries, emails) and the one lease formula.
const b = { baseMs: 30_000, maxMs: 6 * 3600_000 }

describe('the back-off', () => {
  it('doubles its ceiling per failed attempt, up to the cap', () => {
    expect([1, 2, 3, 4].map((a) => backoffCeiling(a, b))).toEqual([30_000, 60_000, 120_000, 240_000])
    expect(backoffCeiling(40, b)).toBe(6 * 3600_000)
    expect(backoffCeiling(1_000_000, b)).toBe(6 * 3600_000)
  })
  it('jitters fully in [floor, ceiling): never a hot loop, never past the cap', () => {
    expect(backoffDelay(1, 0, b)).toBe(MIN_DELAY_MS)
    expect(backoffDelay(1, 0.5, b)).toBe(15_000)
    expect(backoffDelay(3, 0.999999, b)).toBe(119_999)
    expect(backoffDelay(40, 0.999999, b)).toBeLessThan(6 * 3600_000)
  })
  it('refuses what is not an attempt or a random number', () => {
    expect(() => backoffCeiling(0, b)).toThrow(RangeError)
    expect(() => backoffDelay(1, 1, b)).toThrow(RangeError)
  })
})

it('leases a job for its work twice over and a margin', () => {
  expect(leaseMs(10_000)).toBe(30_000)
})
