import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { PackageRow } from '../../src/packages/model/field-kinds.js'
import { eventsFor } from '../../src/packages/model/events.js'
import { PackageEventDataSchema } from '../../src/packages/model/payload.js'
import type { Resolved } from '../../src/packages/model/resolve.js'
import { changeOf, newPackageOf, nextState, beforeChange, type Actor } from '../../src/packages/model/rules.js'
import { PACKAGE_STATUSES } from '../../src/packages/model/statuses.js'
import { AppError } from '../../src/platform/kit/errors.js'
import { eventNames } from '../../src/events/catalogue.js'
import { validatorOf } from './support-validate.js'

const eventDataErrors = validatorOf(PackageEventDataSchema)

// The pure rules of a package change, over arbitrary changes: every event one can emit is in the
// catalogue (src/events/catalogue.ts), and its data is what PackageEventData describes.

const status = fc.constantFrom(...PACKAGE_STATUSES)
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined })
const locker = fc.record({
  bank: fc.option(fc.constantFrom('North', 'South')),
  unit: fc.option(fc.constantFrom('1', '2')),
})

describe('eventsFor', () => {
  it('emits only catalogued events, whatever the transition', () => {
    fc.assert(
      fc.property(
        fc.option(status),
        status,
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        locker,
        locker,
        (previousStatus, s, wasAtSite, wasDamaged, damaged, previousLocker, lockerNow) => {
          const events = eventsFor({
            previousStatus,
            status: s,
            wasAtSite,
            wasDamaged,
            damaged,
            previousLocker,
            locker: lockerNow,
          })
          expect(events.length).toBeGreaterThan(0)
          for (const e of events) expect(eventNames(e.variant)).toContain(e.eventName)
        },
      ),
      { numRuns: 2000 },
    )
  })
})

const site = {
  inboundSiteId: 'site_1',
  name: 'Shelf',
  type: 'shelf',
  parent: null,
  locationHierarchy: 'Shelf',
  ancestorlist: [],
  topTier: { inboundSiteId: 'site_1', name: 'Shelf' },
  locationId: null,
  status: 'active' as const,
  deleted: false,
}
const receiver = {
  contactId: 'con_r',
  contactType: 'RECEIVER' as const,
  name: 'Ada',
  email: null,
  status: 'active' as const,
  deleted: false,
}
const actor: Actor = { subId: 'sub_1', userName: 'client', clerk: 'clerk' }
const now = new Date('2026-01-01T00:00:00Z')

const body = fc.record({
  package: fc.record(
    {
      trackingNumber: fc.constantFrom('1Z1', 'MR2'),
      damaged: maybe(fc.boolean()),
      comment: maybe(fc.option(fc.string({ maxLength: 5 }))),
      receiver: maybe(fc.option(fc.constant({ contactId: 'con_r' }))),
      givenTo: maybe(fc.option(fc.constant({ contactId: 'con_r' }))),
      timezone: maybe(fc.option(fc.integer({ min: -840, max: 840 }))),
    },
    { requiredKeys: ['trackingNumber'] },
  ),
  lastActivity: maybe(
    fc.record(
      {
        status,
        location: maybe(
          fc.record({
            lockerBank: maybe(fc.constantFrom('North', 'South')),
            lockerUnit: maybe(fc.constantFrom('1', '2')),
            packageLocation: maybe(fc.constant('A1')),
          }),
        ),
      },
      { requiredKeys: ['status'] },
    ),
  ),
})
const resolvedArb = fc.record({ site: fc.boolean(), carrier: fc.boolean() }).map(({ site: s, carrier }): Resolved => ({
  contacts: new Map([['con_r', receiver]]),
  customFieldDefs: [],
  site: s ? site : undefined,
  carrier: carrier ? { carrierId: 'ups', name: 'UPS' } : undefined,
}))

/** Ids as the service draws them, deterministic. */
const idsFrom = () => {
  let n = 0
  return (prefix: string) => `${prefix}${++n}`
}

function checkEvents(events: Array<{ variant: string; event_name: string; data: unknown }>) {
  for (const e of events) {
    expect(eventNames(e.variant as 'tracking' | 'locker')).toContain(e.event_name)
    const data = typeof e.data === 'string' ? JSON.parse(e.data) : e.data
    expect(eventDataErrors(data)).toEqual([])
  }
}

/** A change the rules refuse (IN_LOCKER without a unit, delivered to nobody) is a 400, not an event. */
const refused = (f: () => void) => {
  try {
    f()
    return false
  } catch (e) {
    if (e instanceof AppError && e.code === 'VALIDATION_FAILED') return true
    throw e
  }
}

describe('a package change, add then updates', () => {
  it('emits only catalogued events, each with data PackageEventData accepts', () => {
    fc.assert(
      fc.property(
        body,
        fc.array(fc.tuple(body, resolvedArb), { maxLength: 4 }),
        resolvedArb,
        (first, updates, resolved) => {
          const ids = idsFrom()
          let add: ReturnType<typeof newPackageOf> | undefined
          if (refused(() => (add = newPackageOf(ids, actor, first, resolved, now, () => 'ABCDEF')))) return
          checkEvents(add!.events)
          let row = {
            ...add!.package,
            custom_fields: JSON.parse(add!.package.custom_fields),
            archived_at: add!.package.archived_at ?? null,
          } as PackageRow
          for (const [update, r] of updates) {
            let change: ReturnType<typeof changeOf> | undefined
            if (
              refused(
                () =>
                  (change = changeOf(
                    ids,
                    actor,
                    beforeChange(row),
                    nextState(row, update, r, actor, now),
                    update,
                    r,
                    now,
                  )),
              )
            )
              continue
            checkEvents(change!.events)
            row = { ...row, ...change!.package }
          }
        },
      ),
      { numRuns: 500 },
    )
  })
})
