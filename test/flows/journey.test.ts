import { describe, expect, it } from 'vitest'
import { basic } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'
import { PNG_1PX } from '../support/factories.js'

// The README's walk-through, as an integrator runs it: every step over HTTP, from client
// credentials to an archived package with its whole history.
const t = useTestApp()

describe('the receiving journey', () => {
  it('token → location → sites → contact → tracking number → image → add → decode → deliver with a signature → history → search → archive', async () => {
    const { clientId, clientSecret } = await t.ctx.clients.createClient({ subscription: 'journey', name: 'front desk' })
    const tokenRes = await t.inject({
      method: 'POST',
      url: '/auth/api/v1/token',
      headers: { authorization: basic(clientId, clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&scope=psapi',
    })
    expect(tokenRes.statusCode).toBe(200)
    const auth = { authorization: `Bearer ${tokenRes.json().access_token}` }
    const call = async (
      method: 'GET' | 'POST' | 'PUT' | 'PATCH',
      url: string,
      payload?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await t.inject({ method, url, payload: payload as never, headers: { ...auth, ...headers } })
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300)
      return res.json()
    }

    const { locationId } = await call('POST', '/api/v1/locations', {
      name: 'Tower',
      address: { line1: '1 Main St', city: 'New York', state: 'NY', postalCode: '10001', country: 'US' },
      timezone: 'America/New_York',
    })
    const { inboundSiteId: hq } = await call('POST', '/api/v1/inboundsites', {
      type: 'site',
      name: 'HQ',
      locationId,
      primary: true,
    })
    const { inboundSiteId: shelf } = await call('POST', '/api/v1/inboundsites', {
      type: 'shelf',
      name: 'Shelf 1',
      parent: hq,
    })
    const { contactId: ada } = await call('POST', '/api/v1/contacts', {
      contactType: 'RECEIVER',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
    })
    const { trackingNumber: internal } = await call('POST', '/api/v1/trackingNumbers')
    expect(internal).toMatch(/^MR[0-9A-Z]+$/)

    const label = await call('POST', '/api/v1/packages/images', { base64: PNG_1PX })
    const intake = {
      package: { trackingNumber: '1Z999AA10123456784', carrier: { carrierId: 'UPS' }, receiver: { contactId: ada } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: shelf } },
      images: [{ imageLevel: 'ASSET', imageType: 'LABEL', tempURL: label.tempURL }],
    }
    const added = await call('POST', '/api/v1/packages', intake, { 'idempotency-key': 'intake-0001' })
    expect(added).toMatchObject({
      trackingNumber: '1Z999AA10123456784',
      images: [{ imageId: label.imageId, imageType: 'LABEL' }],
    })
    // The clerk's scanner retries: same key, same body, same answer, no second package.
    expect(await call('POST', '/api/v1/packages', intake, { 'idempotency-key': 'intake-0001' })).toEqual(added)

    const decoded = await call('GET', '/api/v1/packages/tracking/decode?trackingNumber=1Z999AA10123456784')
    expect(decoded.package).toMatchObject({
      trackingNumber: '1Z999AA10123456784',
      packageId: added.packageId,
      currentStatus: 'RECEIVED',
      carrier: { carrierId: 'UPS' },
    })

    const signature = await call('POST', '/api/v1/packages/images', { base64: PNG_1PX })
    await call('PUT', `/api/v1/packages/${added.packageId}`, {
      package: {},
      lastActivity: { status: 'DELIVERED' },
      images: [{ imageLevel: 'ACTIVITY', imageType: 'SIGNATURE', tempURL: signature.tempURL }],
    })
    const record = await call('GET', `/api/v1/packages/${added.packageId}?type=DETAILED`)
    expect(record).toMatchObject({
      currentStatus: 'DELIVERED',
      givenTo: { contactId: ada, name: 'Ada Lovelace' },
      deliveryClerk: clientId,
      locationZip: '10001',
      currentLocation: {
        inboundSiteId: shelf,
        locationHierarchy: 'HQ| Shelf 1',
        topTier: { inboundSiteId: hq, name: 'HQ' },
      },
    })

    const history = await call('GET', `/api/v1/packages/${added.packageId}?type=ACTIVITIES`)
    expect(history.activities.map((x: { status: string }) => x.status)).toEqual(['RECEIVED', 'DELIVERED'])
    expect(history.activities[1].images).toEqual([
      expect.objectContaining({ imageId: signature.imageId, imageType: 'SIGNATURE' }),
    ])

    const found = await call('GET', '/api/v1/packages?search=trackingNumber:6784&searchPosition=ends')
    expect(found.packages.map((p: { packageId: string }) => p.packageId)).toEqual([added.packageId])

    expect(await call('PATCH', `/api/v1/packages/${added.packageId}/archive`)).toEqual({ packageId: added.packageId })
    const byNumber = await call('GET', '/api/v1/packages/tracking/1Z999AA10123456784')
    expect(byNumber).toMatchObject({ packageId: added.packageId, archived: true, currentStatus: 'ARCHIVED' })
    const events = await t.ctx.db
      .selectFrom('package_events')
      .select(['event_name', 'sequence'])
      .where('package_id', '=', added.packageId)
      .where('variant', '=', 'tracking')
      .orderBy('sequence')
      .execute()
    expect(events.map((e) => e.event_name)).toEqual(['Acceptance', 'Received', 'Delivered', 'Archived'])
  })
})
