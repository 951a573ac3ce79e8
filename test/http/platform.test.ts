import { describe, expect, it } from 'vitest'
import { allErrorEntries } from '../../src/platform/kit/errors.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()

describe('correlation id', () => {
  it('echoes a caller id in the header and the error body', async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/api/v1/nothing-here',
      headers: { 'x-correlation-id': 'abc-123' },
    })
    expect(res.headers['x-correlation-id']).toBe('abc-123')
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({
      errors: [
        {
          errorCode: 'not_found',
          errorDescription: expect.any(String),
          additionalCode: 'GEN-4040',
          additionalInfo: '',
          additionalParameters: '',
          correlationID: 'abc-123',
        },
      ],
    })
  })

  it('generates one when absent, and replaces one that is unsafe to log', async () => {
    const none = await t.inject({ method: 'GET', url: '/healthz' })
    expect(none.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/)
    const unsafe = await t.inject({ method: 'GET', url: '/healthz', headers: { 'x-correlation-id': 'a b\tc' } })
    expect(unsafe.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('operations endpoints', () => {
  it('answers liveness and readiness', async () => {
    expect((await t.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' })
    expect((await t.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' })
  })

  it('exposes Prometheus metrics with per-route request durations', async () => {
    await t.inject({ method: 'GET', url: '/healthz' })
    const res = await t.inject({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toContain('text/plain')
    expect(res.body).toContain(
      'mailroom_http_request_duration_seconds_bucket{le="0.001",method="GET",route="/healthz",status="200"}',
    )
  })
})

describe('OpenAPI', () => {
  it('serves an OpenAPI 3.1 document generated from the routes, with the security schemes', async () => {
    const res = await t.inject({ method: 'GET', url: '/openapi.json' })
    expect(res.statusCode).toBe(200)
    const doc = res.json()
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/auth/api/v1/token', '/auth/.well-known/jwks.json', '/api/v1/session']),
    )
    expect(doc.components.securitySchemes).toHaveProperty('bearerAuth')
    expect(doc.paths['/api/v1/session'].get.responses).toHaveProperty('401')
  })

  it('documents every code of the error catalogue', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json()
    for (const { entry } of allErrorEntries())
      expect(doc.info.description).toContain(`| ${entry.additionalCode} | ${entry.status} | ${entry.errorCode} |`)
  })

  it('serves the docs page and its assets without the internet', async () => {
    const page = await t.inject({ method: 'GET', url: '/docs/' })
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('swagger-ui')
    const asset = await t.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' })
    expect(asset.statusCode).toBe(200)
    expect(page.body).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)/)
  })
})
