import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { holdingFeeFor, inheritedHoldingFee, holdingFeeColumns } from '../../src/sites/model/holding-fee.js'
import { reminderSchedule } from '../../src/notifications/model/reminder-schedule.js'
import { pickupFees } from '../../src/pickups/model/fees.js'
import { flagsOf } from '../../src/packages/model/flags.js'

// Issue 30's pure rules: the holding fee of a parcel, and the reminder job's passes with
// perishables reminded sooner.

const DAY = 86_400_000
const since = new Date('2026-03-01T09:00:00.000Z')
const at = (ms: number) => new Date(since.getTime() + ms)
const policy = { freeDays: 2, amountPerDay: 150, currency: 'EUR' }

describe('holdingFeeFor', () => {
  it('charges nothing without a policy or at 0 a day', () => {
    expect(holdingFeeFor(undefined, since, at(10 * DAY))).toBeUndefined()
    expect(holdingFeeFor({ ...policy, amountPerDay: 0 }, since, at(10 * DAY))).toBeUndefined()
  })

  it('counts every started day, free days first, per day after', () => {
    const cases: Array<[number, number, number]> = [
      // [held for, days held, amount]
      [0, 0, 0],
      [1, 1, 0],
      [DAY, 1, 0],
      [DAY + 1, 2, 0],
      [2 * DAY, 2, 0],
      [2 * DAY + 1, 3, 150],
      [3 * DAY, 3, 150],
      [10 * DAY - 1, 10, 8 * 150],
    ]
    for (const [held, daysHeld, amount] of cases)
      expect(holdingFeeFor(policy, since, at(held)), String(held)).toMatchObject({
        daysHeld,
        amount,
        chargedDays: Math.max(0, daysHeld - 2),
        currency: 'EUR',
        capped: false,
        since: since.toISOString(),
        freeUntil: at(2 * DAY).toISOString(),
      })
  })

  it('stops at the cap, and a clock before the arrival holds it 0 days', () => {
    expect(holdingFeeFor({ ...policy, cap: 400 }, since, at(4 * DAY))).toMatchObject({ amount: 300, capped: false })
    expect(holdingFeeFor({ ...policy, cap: 400 }, since, at(5 * DAY))).toMatchObject({ amount: 400, capped: true })
    expect(holdingFeeFor({ ...policy, cap: 0 }, since, at(5 * DAY))).toMatchObject({ amount: 0, capped: true })
    expect(holdingFeeFor(policy, since, at(-DAY))).toMatchObject({ daysHeld: 0, amount: 0 })
  })

  it('never decreases with time, never exceeds the cap, and is a whole number of minor units', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined }),
        fc.integer({ min: 0, max: 60 * DAY }),
        fc.integer({ min: 0, max: 10 * DAY }),
        (freeDays, amountPerDay, cap, held, more) => {
          const p = { freeDays, amountPerDay, currency: 'USD', ...(cap !== undefined ? { cap } : {}) }
          const a = holdingFeeFor(p, since, at(held))!
          const b = holdingFeeFor(p, since, at(held + more))!
          expect(b.amount).toBeGreaterThanOrEqual(a.amount)
          expect(Number.isInteger(a.amount)).toBe(true)
          if (cap !== undefined) expect(a.amount).toBeLessThanOrEqual(cap)
          expect(a.amount).toBe(Math.min(cap ?? Infinity, Math.max(0, a.daysHeld - freeDays) * amountPerDay))
        },
      ),
    )
  })

  it('is inherited from the nearest site of the chain that sets one; 0 a day set below stops it', () => {
    const none = holdingFeeColumns(null)
    const top = holdingFeeColumns({ ...policy, cap: 900 })
    expect(inheritedHoldingFee([none, none, top])).toEqual({ ...policy, cap: 900 })
    expect(inheritedHoldingFee([none, none])).toBeUndefined()
    const off = inheritedHoldingFee([holdingFeeColumns({ ...policy, amountPerDay: 0 }), top])
    expect(holdingFeeFor(off, since, at(9 * DAY))).toBeUndefined()
  })
})

describe('pickupFees', () => {
  it('charges each parcel by its site, leaves out those owing nothing, totals per currency', () => {
    const chains = new Map([
      ['eu', [{ siteId: 'eu', name: 'EU', signatureRule: null, photoProofAllowed: null, holdingFee: policy }]],
      [
        'shelf',
        [
          { siteId: 'shelf', name: 'Shelf', signatureRule: null, photoProofAllowed: null },
          { siteId: 'eu', name: 'EU', signatureRule: null, photoProofAllowed: null, holdingFee: policy },
        ],
      ],
      [
        'uk',
        [
          {
            siteId: 'uk',
            name: 'UK',
            signatureRule: null,
            photoProofAllowed: null,
            holdingFee: { ...policy, currency: 'GBP' },
          },
        ],
      ],
    ])
    const parcel = (packageId: string, siteId: string | null, arrivedAt = since) => ({
      packageId,
      trackingNumber: packageId.toUpperCase(),
      siteId,
      arrivedAt,
    })
    const fees = pickupFees(
      [parcel('a', 'eu'), parcel('b', 'shelf'), parcel('c', 'uk'), parcel('d', null), parcel('e', 'eu', at(4 * DAY))],
      chains,
      at(4 * DAY),
    )
    expect(fees?.packages.map((p) => [p.packageId, p.amount, p.currency])).toEqual([
      ['a', 300, 'EUR'],
      ['b', 300, 'EUR'],
      ['c', 300, 'GBP'],
    ])
    expect(fees?.totals).toEqual([
      { amount: 600, currency: 'EUR' },
      { amount: 300, currency: 'GBP' },
    ])
    expect(pickupFees([parcel('a', 'eu')], chains, at(DAY))).toBeUndefined()
  })
})

describe('reminderSchedule', () => {
  const r = (kind: 'REMINDER' | 'FINAL_NOTICE', step: number, afterHours: number, perishableOnly = false) => ({
    kind,
    step,
    afterHours,
    perishableOnly,
  })

  it('runs the final notice first, then the steps from the last, perishables sooner where sooner', () => {
    expect(reminderSchedule({ reminderAfterHours: [], finalNoticeAfterHours: null })).toEqual([])
    expect(reminderSchedule({ reminderAfterHours: [], finalNoticeAfterHours: 100 })).toEqual([
      r('FINAL_NOTICE', 0, 100),
    ])
    expect(reminderSchedule({ reminderAfterHours: [24, 72], finalNoticeAfterHours: 168 })).toEqual([
      r('FINAL_NOTICE', 0, 168),
      r('REMINDER', 2, 72),
      r('REMINDER', 1, 24),
    ])
    expect(
      reminderSchedule({ reminderAfterHours: [24, 72], finalNoticeAfterHours: 168, perishableReminderAfterHours: 4 }),
    ).toEqual([
      r('FINAL_NOTICE', 0, 168),
      r('REMINDER', 2, 72),
      r('REMINDER', 2, 8, true),
      r('REMINDER', 1, 24),
      r('REMINDER', 1, 4, true),
    ])
    // A perishable step that would come no sooner than the normal one is not run twice.
    expect(
      reminderSchedule({ reminderAfterHours: [10, 12], finalNoticeAfterHours: null, perishableReminderAfterHours: 6 }),
    ).toEqual([r('REMINDER', 2, 12), r('REMINDER', 1, 10), r('REMINDER', 1, 6, true)])
    expect(
      reminderSchedule({ reminderAfterHours: [24], finalNoticeAfterHours: null, perishableReminderAfterHours: null }),
    ).toEqual([r('REMINDER', 1, 24)])
  })

  it('for every schedule: each normal step once, each perishable pass sooner than its step and ascending', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 500 }), { maxLength: 10 }).map((a) => a.sort((x, y) => x - y)),
        fc.option(fc.integer({ min: 501, max: 900 }), { nil: null }),
        fc.option(fc.double({ min: 0.1, max: 600, noNaN: true }), { nil: null }),
        (steps, finalNotice, every) => {
          const passes = reminderSchedule({
            reminderAfterHours: steps,
            finalNoticeAfterHours: finalNotice,
            perishableReminderAfterHours: every,
          })
          const normal = passes.filter((p) => !p.perishableOnly && p.kind === 'REMINDER')
          expect(normal.map((p) => p.step)).toEqual(steps.map((_, i) => steps.length - i))
          expect(normal.map((p) => p.afterHours)).toEqual([...steps].reverse())
          expect(passes[0]?.kind === 'FINAL_NOTICE').toBe(finalNotice !== null)
          const perishable = passes.filter((p) => p.perishableOnly)
          for (const p of perishable) {
            expect(p.afterHours).toBeLessThan(steps[p.step - 1]!)
            expect(p.afterHours).toBeCloseTo(p.step * every!)
          }
          // Later steps come first, so a parcel owed several gets the latest only.
          const order = passes.filter((p) => p.kind === 'REMINDER').map((p) => p.step)
          expect(order).toEqual([...order].sort((x, y) => y - x))
        },
      ),
    )
  })
})

describe('flagsOf', () => {
  it('keeps each flag once, in the vocabulary order', () => {
    expect(flagsOf(['FRAGILE', 'PERISHABLE', 'FRAGILE'])).toEqual(['PERISHABLE', 'FRAGILE'])
    expect(flagsOf([])).toEqual([])
  })
})
