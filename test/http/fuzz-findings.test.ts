import { describe, expect, it } from 'vitest'
import { nestsDeeperThan } from '../../src/platform/http/json-depth.js'
import { useTestApp, useClient } from '../support/use-test-app.js'

// What the schema-driven fuzz test (test/fuzz) found, each pinned by its own case.
const t = useTestApp()
const client = useClient(t)

const SIX = [
  'errorCode',
  'errorDescription',
  'additionalCode',
  'additionalInfo',
  'additionalParameters',
  'correlationID',
]

// 70,000 levels: as deep as the routes' body limit lets through (160 KiB, app/body-limits.ts).
describe('a body nested 70,000 levels deep', () => {
  const deep = '['.repeat(70_000) + ']'.repeat(70_000)
  it.each([
    [
      'with an Idempotency-Key, on a POST without a body schema',
      '/api/v1/trackingNumbers',
      { 'idempotency-key': 'deep-1' },
    ],
    ['on a POST whose body is a record of strings', '/api/v1/packages/search', {}],
    ['on a POST whose body is an array', '/api/v1/carriers', {}],
  ])('%s is a 400, not a 500', async (_label, url, headers) => {
    const res = await t.inject({
      method: 'POST',
      url,
      payload: deep,
      headers: { ...client.auth, 'content-type': 'application/json', ...headers },
    })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().errors[0]).toMatchObject({
      additionalCode: 'GEN-4001',
      errorDescription: expect.stringContaining('nests deeper'),
    })
  })

  it('the depth scan skips brackets inside strings and escapes', () => {
    expect(nestsDeeperThan(JSON.stringify({ a: '[[[[[[[[[[', b: '\\"[[[[' }), 3)).toBe(false)
    expect(nestsDeeperThan('[[[[1]]]]', 3)).toBe(true)
    expect(nestsDeeperThan('[[[1]]]', 3)).toBe(false)
  })
})

describe('every error item carries all six fields (CONTRACT §1)', () => {
  it.each([
    ['a 404 with no field', 'GET', '/api/v1/contacts/con_nobody'],
    ['an unknown route', 'GET', '/api/v1/nothing-here'],
    ['a validation error', 'GET', '/api/v1/contacts?limit=abc'],
  ])('%s', async (_label, method, url) => {
    const res = await t.inject({ method: method as 'GET', url, headers: client.auth })
    expect(res.statusCode).toBeGreaterThanOrEqual(400)
    for (const item of res.json().errors)
      for (const f of SIX) expect(typeof item[f], `${f} in ${res.body}`).toBe('string')
  })

  it("a path parameter over the router's length limit is a 414 in the contract's body, not Fastify's own", async () => {
    const res = await t.inject({ method: 'GET', url: `/api/v1/contacts/${'x'.repeat(1000)}`, headers: client.auth })
    expect(res.statusCode).toBe(414)
    expect(res.json().errors[0]).toMatchObject({
      errorCode: 'validation_error',
      additionalCode: 'GEN-4140',
      additionalParameters: '',
      additionalInfo: '',
    })
    expect(res.headers['x-correlation-id']).toBe(res.json().errors[0].correlationID)
  })

  it('a malformed percent-escape in the path too', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/v1/contacts/%E0%A4%A', headers: client.auth })
    expect(res.statusCode).toBe(400)
    for (const f of SIX) expect(typeof res.json().errors[0][f]).toBe('string')
  })
})
