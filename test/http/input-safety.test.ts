import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api } from '../support/factories.js'

// Inputs that the schemas let through but PostgreSQL cannot store or compute: each must be a 400
// naming the field, never a 500 (and never a partial write).
const t = useTestApp()
const client = useClient(t)
let h: ReturnType<typeof api>
let ids: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
beforeAll(async () => {
  h = api(t, client)
  ids = await h.mailroom()
})

const NUL = '\u0000'

describe('the NUL character', () => {
  const cases: Array<[string, 'GET' | 'POST' | 'PUT', () => string, () => unknown, string]> = [
    ['contact name', 'POST', () => '/api/v1/contacts', () => ({ contactType: 'RECEIVER', name: `Ada${NUL}` }), 'name'],
    [
      'custom field name',
      'POST',
      () => '/api/v1/customfields',
      () => ({ name: `Dept${NUL}`, dataType: 'TEXT', required: false }),
      'name',
    ],
    [
      'location city',
      'POST',
      () => '/api/v1/locations',
      () => ({
        name: 'L',
        address: { line1: '1', city: `NY${NUL}`, state: 'NY', postalCode: '1', country: 'US' },
        timezone: 'UTC',
      }),
      'address.city',
    ],
    ['courier name', 'POST', () => '/api/v1/carriers/catalog', () => ({ name: `Bike${NUL}` }), 'name'],
    ['carriers of locations', 'POST', () => '/api/v1/carriers', () => [`loc${NUL}`], '[0]'],
    ['sites of locations', 'POST', () => '/api/v1/location/inboundsites', () => [`loc${NUL}`], '[0]'],
    [
      'package comment',
      'POST',
      () => '/api/v1/packages',
      () => ({ package: { trackingNumber: 'NUL0001', comment: `a${NUL}b`, receiver: { contactId: ids.receiverId } } }),
      'package.comment',
    ],
    ['site name', 'PUT', () => `/api/v1/inboundsites/${ids.shelfId}`, () => ({ name: `Shelf${NUL}` }), 'name'],
  ]
  it.each(cases)('in a %s is a 400 naming the field', async (_label, method, url, body, field) => {
    const res = await h.call(method, url(), body())
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().errors).toEqual([
      expect.objectContaining({
        errorCode: 'validation_error',
        additionalParameters: field,
        errorDescription: expect.stringContaining('NUL'),
      }),
    ])
  })

  it('in a path or a query is a 400 too', async () => {
    for (const url of [
      '/api/v1/packages/tracking/A%00B',
      '/api/v1/contacts?query=a%00',
      '/api/v1/inboundsites?query=a%00',
      `/api/v1/packages/${'p%00'}?type=DETAILED`,
    ]) {
      const res = await h.call('GET', url)
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400)
    }
  })

  it('left nothing behind', async () => {
    const res = await h.call('GET', '/api/v1/packages/tracking/NUL0001')
    expect(res.statusCode).toBe(404)
  })
})

describe('offsets past what the database computes', () => {
  it.each(['/api/v1/contacts', '/api/v1/customfields', '/api/v1/locations', '/api/v1/inboundsites'])(
    '%s refuses a huge skip with a 400 naming it',
    async (url) => {
      const res = await h.call('GET', `${url}?skip=100000000000000000000`)
      expect(res.statusCode).toBe(400)
      expect(res.json().errors[0].additionalParameters).toBe('skip')
      expect((await h.call('GET', `${url}?skip=2147483647`)).statusCode).toBe(200)
    },
  )

  it('the webhook deliveries list refuses a huge skip', async () => {
    const res = await h.call(
      'GET',
      '/webhooks/tracking/api/v1/webhookConfig/whc_x/deliveries?skip=100000000000000000000',
    )
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0].additionalParameters).toBe('skip')
  })

  it('POST /api/v1/carriers refuses a huge page', async () => {
    const res = await h.call('POST', '/api/v1/carriers?page=100000000000000000000', [ids.locationId])
    expect(res.statusCode).toBe(400)
    expect(res.json().errors[0].additionalParameters).toBe('page')
  })
})
