import { describe, expect, it } from 'vitest'
import { basic } from '../support/build-test-app.js'
import { useTestApp, useClient } from '../support/use-test-app.js'

const t = useTestApp()
const me = useClient(t)

const cspOf = (h: Record<string, unknown>) =>
  Object.fromEntries(
    String(h['content-security-policy'])
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name, ...values] = d.split(/\s+/)
        return [name!, values]
      }),
  )

describe('security headers', () => {
  it('are on every response: success, 401, 404, 400, the token endpoint and the webhook interface', async () => {
    const responses = await Promise.all([
      t.inject({ method: 'GET', url: '/api/v1/inboundsites', headers: me.auth }),
      t.inject({ method: 'GET', url: '/api/v1/inboundsites' }),
      t.inject({ method: 'GET', url: '/no/such/route' }),
      t.inject({ method: 'GET', url: '/api/v1/packages/pkg_x?type=NOPE', headers: me.auth }),
      t.inject({
        method: 'POST',
        url: '/auth/api/v1/token',
        headers: { authorization: basic(me.clientId, me.clientSecret) },
      }),
      t.inject({ method: 'GET', url: '/webhooks/tracking/api/v1/webhookConfig', headers: me.auth }),
      t.inject({ method: 'GET', url: '/auth/.well-known/jwks.json' }),
    ])
    expect(responses.map((r) => r.statusCode)).toEqual([200, 401, 404, 400, 200, 200, 200])
    for (const res of responses) {
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.headers['x-frame-options']).toBe('DENY')
      const csp = cspOf(res.headers)
      expect(csp['default-src']).toEqual(["'none'"])
      expect(csp['frame-ancestors']).toEqual(["'none'"])
    }
  })

  it("an API answer carries the REST headers only; the docs page keeps a document's", async () => {
    const documentOnly = [
      'cross-origin-opener-policy',
      'origin-agent-cluster',
      'referrer-policy',
      'x-dns-prefetch-control',
      'x-download-options',
      'x-permitted-cross-domain-policies',
      'x-xss-protection',
    ]
    const api = await t.inject({ method: 'GET', url: '/api/v1/inboundsites', headers: me.auth })
    expect(api.headers['cross-origin-resource-policy']).toBe('same-origin')
    for (const h of documentOnly) expect(api.headers, h).not.toHaveProperty(h)
    const page = await t.inject({ method: 'GET', url: '/docs' })
    expect(page.statusCode).toBe(200)
    expect(page.headers['x-frame-options']).toBe('DENY')
    for (const h of documentOnly) expect(page.headers, h).toHaveProperty(h)
    expect(page.headers['referrer-policy']).toBe('no-referrer')
  })

  it('forbid caching of authenticated JSON, and leave public documents cacheable', async () => {
    for (const res of await Promise.all([
      t.inject({ method: 'GET', url: '/api/v1/inboundsites', headers: me.auth }),
      t.inject({ method: 'GET', url: '/api/v1/packages/pkg_nope?type=DETAILED', headers: me.auth }),
      t.inject({
        method: 'GET',
        url: '/webhooks/tracking/api/v1/webhookConfig',
        headers: { authorization: basic(me.clientId, me.clientSecret) },
      }),
      t.inject({
        method: 'POST',
        url: '/auth/api/v1/token',
        headers: { authorization: basic(me.clientId, me.clientSecret) },
      }),
    ])) {
      expect(res.headers['cache-control']).toBe('no-store')
    }
    const jwks = await t.inject({ method: 'GET', url: '/auth/.well-known/jwks.json' })
    expect(jwks.headers['cache-control']).toBe('public, max-age=300')
  })

  it('let the docs page load swagger-ui from this server only, and never be framed', async () => {
    const page = await t.inject({ method: 'GET', url: '/docs' })
    expect(page.statusCode).toBe(200)
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    const csp = cspOf(page.headers)
    expect(csp['frame-ancestors']).toEqual(["'none'"])
    expect(csp['script-src']).toEqual(["'self'"])
    expect(csp['connect-src']).toEqual(["'self'", 'http://localhost:8080'])
    // Every script and stylesheet the page names is served here (offline), and no script is inline.
    const assets = [...page.body.matchAll(/<(?:script|link)[^>]*(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(assets.length).toBeGreaterThanOrEqual(4)
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    for (const asset of assets) {
      expect(asset.startsWith('http'), asset).toBe(false)
      const res = await t.inject({ method: 'GET', url: new URL(asset, 'http://x/docs').pathname })
      expect(res.statusCode, asset).toBe(200)
      expect(cspOf(res.headers)['frame-ancestors']).toEqual(["'none'"])
    }
    const spec = await t.inject({ method: 'GET', url: '/docs/json' })
    expect(spec.statusCode).toBe(200)
    expect(spec.json().openapi).toBe('3.1.0')
  })
})
