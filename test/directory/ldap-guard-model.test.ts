import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  ALWAYS_ALLOWED,
  allowedDeactivations,
  deactivationRefusal,
  describeRefusal,
} from '../../src/directory/model/ldap-guard.js'

describe('the mass-deactivation guard', () => {
  it('lets a run with no deactivations through, whatever it found', () => {
    expect(deactivationRefusal({ valid: 0, deactivations: 0, active: 0 }, 10)).toBeUndefined()
    expect(deactivationRefusal({ valid: 0, deactivations: 0, active: 500 }, 10)).toBeUndefined()
  })

  it('refuses any deactivation by a search that found no usable entry', () => {
    expect(deactivationRefusal({ valid: 0, deactivations: 1, active: 1 }, 50)).toEqual({
      reason: 'empty_search',
      deactivations: 1,
      allowed: 0,
    })
  })

  it('allows the share of the active contacts, never fewer than the floor', () => {
    expect(allowedDeactivations(1000, 10)).toBe(100)
    expect(allowedDeactivations(20, 10)).toBe(ALWAYS_ALLOWED)
    expect(deactivationRefusal({ valid: 900, deactivations: 100, active: 1000 }, 10)).toBeUndefined()
    expect(deactivationRefusal({ valid: 899, deactivations: 101, active: 1000 }, 10)).toEqual({
      reason: 'too_many',
      deactivations: 101,
      allowed: 100,
    })
    expect(deactivationRefusal({ valid: 15, deactivations: 5, active: 20 }, 10)).toBeUndefined()
    expect(deactivationRefusal({ valid: 14, deactivations: 6, active: 20 }, 10)?.reason).toBe('too_many')
  })

  it('lets through a confirmed run making no more deactivations than were confirmed', () => {
    expect(deactivationRefusal({ valid: 0, deactivations: 40, active: 40 }, 10, 40)).toBeUndefined()
    expect(deactivationRefusal({ valid: 10, deactivations: 30, active: 40 }, 10, 29)?.reason).toBe('too_many')
  })

  it('never passes more than the bound without a confirmation, and says why', () =>
    fc.assert(
      fc.property(
        fc.nat(10_000),
        fc.nat(10_000),
        fc.nat(10_000),
        fc.integer({ min: 1, max: 50 }),
        (valid, deactivations, active, percent) => {
          const r = deactivationRefusal({ valid, deactivations, active }, percent)
          if (r) expect(describeRefusal(r)).toMatch(/^Refused: /)
          if (deactivations === 0) expect(r).toBeUndefined()
          else if (valid === 0) expect(r?.reason).toBe('empty_search')
          else expect(r === undefined).toBe(deactivations <= allowedDeactivations(active, percent))
        },
      ),
    ))
})
