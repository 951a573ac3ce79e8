import { beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import type { TestApp } from '../support/build-test-app.js'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api } from '../support/factories.js'

/**
 * Package writes check, and package records show, sites, custom field definitions and carriers
 * through a short per-process memo (REFERENCE_CACHE_SECONDS, 5 s by default). A change through the
 * same process applies to the very next request; one through another process within the time to live.
 */
describe('reference data as package writes see it', () => {
  const t = useTestApp()
  const c = useClient(t)
  let a: ReturnType<typeof api>
  let other: FastifyInstance
  let mailroom: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
  let n = 0
  const add = (app: { inject: TestApp['inject'] }, extra: Record<string, unknown> = {}, siteId = mailroom.siteId) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/packages',
      headers: c.auth,
      payload: {
        package: { trackingNumber: `REFCACHE${++n}`, ...extra },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: siteId } },
      },
    })

  beforeAll(async () => {
    a = api(t, c)
    mailroom = await a.mailroom()
    // A second process on the same database: its own services, hence its own memo.
    other = await t.secondProcess()
  })

  it('refuses a site deactivated through the same process on the very next add', async () => {
    const shelf = await a.site({ type: 'shelf', name: 'Shelf Z', parent: mailroom.buildingId })
    expect((await add(t, {}, shelf)).statusCode).toBe(201)
    await a.ok('PUT', `/api/v1/inboundsites/${shelf}`, { status: 'inactive' })
    const res = await add(t, {}, shelf)
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0].additionalParameters).toBe('lastActivity.location.inboundSiteId')
  })

  it('puts a site renamed through the same process into the very next event', async () => {
    const shelf = await a.site({ type: 'shelf', name: 'Shelf Old', parent: mailroom.buildingId })
    await add(t, {}, shelf)
    await a.ok('PUT', `/api/v1/inboundsites/${mailroom.buildingId}`, { name: 'Building Renamed' })
    const { packageId } = (await add(t, {}, shelf)).json()
    // The webhook payload of the add (its outbox row) names the site as it is now.
    const event = await t.ctx.db
      .selectFrom('package_events')
      .select('data')
      .where('package_id', '=', packageId)
      .executeTakeFirstOrThrow()
    expect(JSON.stringify(event.data)).toContain('Building Renamed')
  })

  it('enforces a required custom field created through the same process at once', async () => {
    expect((await add(t)).statusCode).toBe(201)
    const { customFieldId } = await a.ok('POST', '/api/v1/customfields', {
      name: `Badge ${n}`,
      dataType: 'TEXT',
      required: true,
    })
    const res = await add(t)
    expect(res.statusCode).toBe(400)
    expect(JSON.stringify(res.json().errors)).toContain(customFieldId)
    await a.ok('DELETE', `/api/v1/customfields/${customFieldId}`)
    expect((await add(t)).statusCode).toBe(201)
  })

  it('takes a courier added through the same process at once', async () => {
    expect((await add(t, { carrier: { carrierId: 'UPS' } })).statusCode).toBe(201)
    const { carrierId } = await a.ok('POST', '/api/v1/carriers/catalog', { name: `Bike Courier ${n}` })
    expect((await add(t, { carrier: { carrierId } })).statusCode).toBe(201)
  })

  it('renders a record with its site as renamed: at once through the same process, within the time to live through another', async () => {
    const shelf = await a.site({ type: 'shelf', name: 'Shelf Read', parent: mailroom.buildingId })
    const { packageId } = (await add(t, {}, shelf)).json()
    const shown = async (app: { inject: TestApp['inject'] }) => {
      const res = await app.inject({
        method: 'GET',
        url: `/api/v1/packages/${packageId}?type=DETAILED`,
        headers: c.auth,
      })
      expect(res.statusCode).toBe(200)
      return res.json().currentLocation.locationHierarchy as string
    }
    expect(await shown(other)).toMatch(/\| Shelf Read$/)
    await a.ok('PUT', `/api/v1/inboundsites/${shelf}`, { name: 'Shelf Renamed' })
    expect(await shown(t)).toMatch(/\| Shelf Renamed$/)
    expect(await shown(other)).toMatch(/\| Shelf Read$/)
    t.clock.advance(t.config.referenceCacheSeconds * 1000)
    expect(await shown(other)).toMatch(/\| Shelf Renamed$/)
  })

  it('sees a change made through another process once the time to live has passed', async () => {
    const shelf = await a.site({ type: 'shelf', name: 'Shelf Far', parent: mailroom.buildingId })
    expect((await add(other, {}, shelf)).statusCode).toBe(201)
    await a.ok('PUT', `/api/v1/inboundsites/${shelf}`, { status: 'inactive' })
    // The other process still holds the site as it read it a moment ago ...
    expect((await add(other, {}, shelf)).statusCode).toBe(201)
    t.clock.advance(t.config.referenceCacheSeconds * 1000)
    // ... and no longer once its memo is older than REFERENCE_CACHE_SECONDS.
    expect((await add(other, {}, shelf)).statusCode).toBe(400)
  })
})
