import { describe, expect, it, vi } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'
import { scimCaller } from './scim-support.js'

const t = useTestApp()
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'

async function departedEvents(subId: string) {
  return t.ctx.db
    .selectFrom('package_events')
    .select(['package_id', 'event_name', 'data'])
    .where('sub_id', '=', subId)
    .where('event_name', '=', 'RecipientDeparted')
    .execute()
}

describe('a recipient who leaves with parcels waiting', () => {
  it('is flagged on the dashboard and by an event, and the pickup code keeps working', async () => {
    const c = await t.newClient()
    const a = api(t, c)
    const m = await a.mailroom()
    const scim = await scimCaller(t, c)
    const user = await scim.ok('POST', '/Users', {
      schemas: [USER],
      userName: 'leaver@example.com',
      displayName: 'Lee Leaver',
    })
    const add = async () =>
      a.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: trackingNumber(), receiver: { contactId: user.id }, inboundSiteId: m.siteId },
        lastActivity: { status: 'READY_FOR_PICKUP', location: { inboundSiteId: m.siteId } },
      })
    const p1 = await add()
    const p2 = await add()
    const record = await a.ok('GET', `/api/v1/packages/${p1.packageId}?type=DETAILED`, undefined, 200)
    const code = record.pickupCode as string
    expect(code).toBeTruthy()
    expect((await a.ok('GET', '/api/v1/directory/departures', undefined, 200)).departures).toEqual([])

    // The identity provider deactivates them.
    await scim.ok('PATCH', `/Users/${user.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    })
    const events = await departedEvents(c.subId)
    expect(events.map((e) => e.package_id).sort()).toEqual([p1.packageId, p2.packageId].sort())
    expect(events[0]!.data).toMatchObject({
      departure: { contactId: user.id, name: 'Lee Leaver', reason: 'deactivated' },
    })
    const { departures } = await a.ok('GET', '/api/v1/directory/departures', undefined, 200)
    expect(departures).toEqual([
      expect.objectContaining({
        contactId: user.id,
        reason: 'deactivated',
        packages: expect.arrayContaining([expect.objectContaining({ packageId: p1.packageId, pickupCode: code })]),
      }),
    ])
    // Once per departure: the sweep writes nothing more.
    await t.ctx.directory.departures.sweep()
    expect(await departedEvents(c.subId)).toHaveLength(2)

    // The code still works: the parcels are handed over, and the exception clears.
    const pickup = await a.ok('POST', '/api/v1/pickups', { pickupCode: code, typedSignature: 'Lee Leaver' })
    expect(pickup.packageIds.sort()).toEqual([p1.packageId, p2.packageId].sort())
    expect((await a.ok('GET', '/api/v1/directory/departures', undefined, 200)).departures).toEqual([])
  })

  it('flags a second departure after the recipient came back, whoever brought them back', async () => {
    const c = await t.newClient()
    const a = api(t, c)
    const m = await a.mailroom()
    const scim = await scimCaller(t, c)
    const user = await scim.ok('POST', '/Users', { schemas: [USER], userName: 'twice@example.com' })
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber(), receiver: { contactId: user.id }, inboundSiteId: m.siteId },
      lastActivity: { status: 'READY_FOR_PICKUP', location: { inboundSiteId: m.siteId } },
    })
    const deactivate = () =>
      scim.ok('PATCH', `/Users/${user.id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { active: false } }],
      })
    await deactivate()
    expect(await departedEvents(c.subId)).toHaveLength(1)
    // A clerk brings them back, then the provider deactivates them again: flagged again.
    await a.ok('PUT', `/api/v1/contacts/${user.id}`, { status: 'active' }, 200)
    await deactivate()
    expect(await departedEvents(c.subId)).toHaveLength(2)
    // A clerk's own deactivation after a clerk's reactivation: flagged again too.
    await a.ok('PUT', `/api/v1/contacts/${user.id}`, { status: 'active' }, 200)
    await a.ok('PUT', `/api/v1/contacts/${user.id}`, { status: 'inactive' }, 200)
    expect(await departedEvents(c.subId)).toHaveLength(3)
    await t.ctx.directory.departures.sweep()
    expect(await departedEvents(c.subId)).toHaveLength(3)
  })

  it('answers a committed write even when noting the departure fails, and the sweep notes it later', async () => {
    const c = await t.newClient()
    const a = api(t, c)
    const m = await a.mailroom()
    const scim = await scimCaller(t, c)
    const user = await scim.ok('POST', '/Users', { schemas: [USER], userName: 'hook@example.com' })
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber(), receiver: { contactId: user.id }, inboundSiteId: m.siteId },
      lastActivity: { status: 'READY_FOR_PICKUP', location: { inboundSiteId: m.siteId } },
    })
    const broken = vi.spyOn(t.ctx.receiving.packages, 'waitingPackages').mockRejectedValue(new Error('connection lost'))
    try {
      const out = await scim.ok('PATCH', `/Users/${user.id}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', value: { active: false } }],
      })
      expect(out.active).toBe(false)
      expect(broken).toHaveBeenCalled()
    } finally {
      broken.mockRestore()
    }
    expect(await departedEvents(c.subId)).toHaveLength(0)
    await t.ctx.directory.departures.sweep()
    expect(await departedEvents(c.subId)).toHaveLength(1)
  })

  it('notes a move-out date when it passes (the periodic sweep), and a delegate collects on their behalf', async () => {
    let c = await t.newClient()
    let a = api(t, c)
    const m = await a.mailroom()
    const tomorrow = new Date(t.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10)
    const resident = await a.contact('RECEIVER', 'Rita Resident', { moveOutDate: tomorrow })
    const partner = await a.contact('RECEIVER', 'Pat Partner')
    await a.ok('PUT', `/api/v1/contacts/${resident}`, { delegates: [{ contactId: partner }] }, 200)
    expect((await a.ok('GET', `/api/v1/contacts/${resident}`, undefined, 200)).delegates).toEqual([
      { contactId: partner },
    ])
    const p = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber(), receiver: { contactId: resident }, inboundSiteId: m.siteId },
      lastActivity: { status: 'READY_FOR_PICKUP', location: { inboundSiteId: m.siteId } },
    })
    await t.ctx.directory.departures.sweep()
    expect(await departedEvents(c.subId)).toHaveLength(0)
    t.clock.advance(2 * 86_400_000)
    c = await t.refresh(c)
    a = api(t, c)
    await t.ctx.directory.departures.sweep()
    const events = await departedEvents(c.subId)
    expect(events).toHaveLength(1)
    expect(events[0]!.data).toMatchObject({ departure: { reason: 'moved-out', moveOutDate: tomorrow } })

    const pickup = await a.ok('POST', '/api/v1/pickups', {
      contactId: resident,
      givenTo: { contactId: partner },
      typedSignature: 'Pat Partner',
    })
    expect(pickup).toMatchObject({
      givenTo: { contactId: partner },
      onBehalfOf: { contactId: resident },
      delegate: true,
    })
    const history = await a.ok('GET', `/api/v1/packages/${p.packageId}?type=ACTIVITIES`, undefined, 200)
    expect(history.activities.at(-1).comment).toMatch(/Pat Partner, a delegate, on behalf of Rita Resident/)
    // A delegate must be a contact of the subscription, and not the contact itself.
    const self = await a.call('PUT', `/api/v1/contacts/${resident}`, { delegates: [{ contactId: resident }] })
    expect(self.statusCode).toBe(400)
    const stranger = await a.call('PUT', `/api/v1/contacts/${resident}`, { delegates: [{ contactId: 'con_nobody' }] })
    expect(stranger.statusCode).toBe(400)
    expect(stranger.json().errors[0].additionalParameters).toBe('delegates')
  })
})
