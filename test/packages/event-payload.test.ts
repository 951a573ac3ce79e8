import { beforeAll, describe, expect, it } from 'vitest'
import { PackageEventDataSchema } from '../../src/packages/model/payload.js'
import { eventNames } from '../../src/events/catalogue.js'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { validatorOf } from './support-validate.js'

// The outbox rows real changes write (adds, updates, lockers, hand-overs, archives) carry data
// that the published PackageEventData schema accepts, under catalogued event names.

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
let m: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
beforeAll(async () => {
  a = api(t, me)
  m = await a.mailroom()
})

const errorsOf = validatorOf(PackageEventDataSchema)

describe('the data of package events', () => {
  it('is what PackageEventData describes, for every kind of change', async () => {
    const add = async (pkg: Record<string, unknown>, lastActivity: Record<string, unknown>) =>
      (
        await a.ok('POST', '/api/v1/packages', {
          package: { trackingNumber: trackingNumber('EVP'), ...pkg },
          lastActivity,
        })
      ).packageId as string
    const update = (id: string, body: Record<string, unknown>) =>
      a.ok('PUT', `/api/v1/packages/${id}`, { package: {}, ...body })

    const full = await add(
      {
        carrier: { carrierId: 'UPS' },
        receiver: { contactId: m.receiverId },
        sender: { contactId: m.senderId },
        comment: 'fragile',
      },
      { status: 'RECEIVED', location: { inboundSiteId: m.shelfId } },
    )
    await update(full, { lastActivity: { status: 'IN_LOCKER', location: { lockerBank: 'North', lockerUnit: '7' } } })
    await update(full, { lastActivity: { status: 'IN_LOCKER', location: { lockerBank: 'North', lockerUnit: '8' } } })
    await update(full, { lastActivity: { status: 'PICKED_UP' } })
    await a.ok('PATCH', `/api/v1/packages/${full}/archive`, { archived: true })
    await a.ok('PATCH', `/api/v1/packages/${full}/archive`, { archived: false })

    const announced = await add({}, { status: 'IN_TRANSIT' })
    await update(announced, {
      package: { damaged: true },
      lastActivity: { status: 'OUT_FOR_DELIVERY', location: { inboundSiteId: m.siteId } },
    })
    await update(announced, { lastActivity: { status: 'READY_FOR_PICKUP' } })
    await update(announced, { package: { comment: null, receiver: { contactId: m.receiverId } } })

    const rows = await t.ctx.db
      .selectFrom('package_events')
      .select(['package_id', 'variant', 'event_name', 'sequence', 'data'])
      .where('sub_id', '=', me.subId)
      .orderBy('package_id')
      .orderBy('sequence')
      .execute()
    expect(new Set(rows.map((r) => r.package_id))).toEqual(new Set([full, announced]))
    expect(rows.length).toBeGreaterThan(12)
    for (const r of rows) {
      expect(eventNames(r.variant), `${r.variant}.${r.event_name}`).toContain(r.event_name)
      expect(errorsOf(r.data), `${r.event_name} ${JSON.stringify(r.data)}`).toEqual([])
      expect(r.data).toMatchObject({ packageId: r.package_id, sequence: r.sequence })
    }
    // What the schema lets be absent does go absent or present as the change says.
    const kinds = new Set(rows.flatMap((r) => Object.keys(r.data as object)))
    for (const k of ['carrier', 'receiver', 'lockerBank', 'lockerUnit', 'currentLocation', 'previousStatus'])
      expect(kinds, k).toContain(k)
  })
})
