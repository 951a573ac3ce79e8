import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api } from '../support/factories.js'

// JSON's "\ud800" parses to a lone UTF-16 surrogate: a JavaScript string, but no character.
// PostgreSQL refuses it inside jsonb (22P02) and stores nonsense as text. Every route's validator
// must answer it as a 400 naming the field, on both engines, and write nothing.
const t = useTestApp()
const client = useClient(t)
let h: ReturnType<typeof api>
let ids: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
let fieldId: string
beforeAll(async () => {
  h = api(t, client)
  ids = await h.mailroom()
  fieldId = (await h.ok('POST', '/api/v1/customfields', { name: 'Dept', dataType: 'TEXT', required: false }))
    .customFieldId
})

const HIGH = '\ud800'
const LOW = '\udc00'
const HOOKS = '/webhooks/tracking/api/v1/webhookConfig'

describe('a lone UTF-16 surrogate', () => {
  const cases: Array<[string, 'POST' | 'PUT', () => string, () => unknown, string]> = [
    [
      'location address',
      'POST',
      () => '/api/v1/locations',
      () => ({
        name: 'L',
        address: { line1: `1${HIGH}`, city: 'NY', state: 'NY', postalCode: '1', country: 'US' },
        timezone: 'UTC',
      }),
      'address.line1',
    ],
    [
      'custom field option',
      'POST',
      () => '/api/v1/customfields',
      () => ({ name: 'Colour', dataType: 'LIST', required: false, options: ['red', `gr${LOW}een`] }),
      'options[1]',
    ],
    [
      'package comment',
      'POST',
      () => '/api/v1/packages',
      () => ({
        package: { trackingNumber: 'SURR0001', receiver: { contactId: ids.receiverId } },
        lastActivity: { status: 'RECEIVED', comment: `x${HIGH}` },
      }),
      'lastActivity.comment',
    ],
    [
      'custom field value',
      'POST',
      () => '/api/v1/packages',
      () => ({
        package: {
          trackingNumber: 'SURR0002',
          receiver: { contactId: ids.receiverId },
          customFields: [{ customFieldId: fieldId, value: `v${HIGH}` }],
        },
      }),
      'package.customFields[0].value',
    ],
    [
      'package location',
      'POST',
      () => '/api/v1/packages',
      () => ({
        package: { trackingNumber: 'SURR0003', receiver: { contactId: ids.receiverId }, packageLocation: `${LOW}bin` },
      }),
      'package.packageLocation',
    ],
    [
      'webhook auth params',
      'POST',
      () => HOOKS,
      () => ({
        name: 'ERP',
        type: 'tracking',
        events: ['Received'],
        url: 'http://127.0.0.1:9/hook',
        timeOut: 5,
        authParams: {
          authType: 'oauth2',
          tokenUrl: 'http://127.0.0.1:9/token',
          clientId: `cid${HIGH}`,
          clientSecret: 'secret-0123456789-wxyz',
        },
      }),
      'authParams.clientId',
    ],
    ['contact name', 'POST', () => '/api/v1/contacts', () => ({ contactType: 'RECEIVER', name: `Ada${HIGH}` }), 'name'],
    ['site name', 'PUT', () => `/api/v1/inboundsites/${ids.shelfId}`, () => ({ name: `Shelf${LOW}` }), 'name'],
    [
      'search mapping key',
      'POST',
      () => '/api/v1/packages/search',
      () => ({ [`trackingNumber${HIGH}`]: 'TN' }),
      `trackingNumber${HIGH}`,
    ],
  ]
  it.each(cases)('in a %s is a 400 naming the field', async (_label, method, url, body, field) => {
    const res = await h.call(method, url(), body())
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().errors).toEqual([
      expect.objectContaining({
        errorCode: 'validation_error',
        additionalParameters: field,
        errorDescription: expect.stringContaining('surrogate'),
      }),
    ])
  })

  it('a well-formed pair (an emoji) is stored and read back', async () => {
    const written = await h.ok('POST', '/api/v1/packages', {
      package: {
        trackingNumber: 'SURR0004',
        receiver: { contactId: ids.receiverId },
        packageLocation: 'bin \ud83d\udce6',
      },
    })
    const got = await h.ok('GET', `/api/v1/packages/${written.packageId}?type=DETAILED`)
    expect(got.packageLocation).toBe('bin \u{1F4E6}')
  })

  it('in many values at once lists 50 and says checking stopped there', async () => {
    const options = Array.from({ length: 200 }, (_, i) => `o${i}${HIGH}`)
    const res = await h.call('POST', '/api/v1/customfields', {
      name: 'Many',
      dataType: 'LIST',
      required: false,
      options,
    })
    expect(res.statusCode).toBe(400)
    const errors = res.json().errors
    expect(errors, JSON.stringify(errors.slice(0, 3))).toHaveLength(51)
    expect(errors[0]).toMatchObject({ additionalParameters: 'options[0]' })
    expect(errors[50].errorDescription).toMatch(/More than 50 values hold text that cannot be stored/)
  })

  it('left nothing behind', async () => {
    for (const tn of ['SURR0001', 'SURR0002', 'SURR0003'])
      expect((await h.call('GET', `/api/v1/packages/tracking/${tn}`)).statusCode).toBe(404)
    expect((await h.ok('GET', '/api/v1/locations')).totalCount).toBe(1)
  })
})
