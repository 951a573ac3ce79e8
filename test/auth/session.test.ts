import { describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import { basic } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()

describe('bearer auth on every interface', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'GET', url: '/api/v1/session' },
      { method: 'GET', url: '/webhooks/tracking/api/v1/session' },
      { method: 'GET', url: '/webhooks/locker/api/v1/session' },
    ],
  )

  it('sets the caller from the token', async () => {
    const c = await t.newClient()
    const res = await t.inject({ method: 'GET', url: '/api/v1/session', headers: c.auth })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ clientId: c.clientId, subId: c.subId, scope: 'psapi', expiresAt: expect.any(String) })
  })

  it('accepts client credentials as Basic on the webhook interface only', async () => {
    const c = await t.newClient()
    const authorization = basic(c.clientId, c.clientSecret)
    const wh = await t.inject({ method: 'GET', url: '/webhooks/tracking/api/v1/session', headers: { authorization } })
    expect(wh.statusCode).toBe(200)
    expect(wh.json().subId).toBe(c.subId)
    const receiving = await t.inject({ method: 'GET', url: '/api/v1/session', headers: { authorization } })
    expect(receiving.statusCode).toBe(401)
    const wrong = await t.inject({
      method: 'GET',
      url: '/webhooks/locker/api/v1/session',
      headers: { authorization: basic(c.clientId, 'not-the-secret') },
    })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.headers['www-authenticate']).toContain('Basic realm="mailroom"')
  })

  it("limits Basic guesses on the webhook interface with the errors[] body, sharing the token endpoint's count", async () => {
    const c = await t.newClient()
    const address = '10.9.9.9'
    // Failures on the token endpoint and on the webhook interface add up (default limit: 10).
    for (let i = 0; i < 5; i++) {
      await t.inject({
        method: 'POST',
        url: '/auth/api/v1/token',
        headers: { authorization: basic(c.clientId, `wrong-${i}`) },
        remoteAddress: address,
      })
    }
    for (let i = 0; i < 5; i++) {
      const res = await t.inject({
        method: 'GET',
        url: '/webhooks/tracking/api/v1/session',
        headers: { authorization: basic(c.clientId, `wrong-${i}`) },
        remoteAddress: address,
      })
      expect(res.statusCode).toBe(401)
    }
    const limited = await t.inject({
      method: 'GET',
      url: '/webhooks/tracking/api/v1/session',
      headers: { authorization: basic(c.clientId, c.clientSecret), 'x-correlation-id': 'corr-429' },
      remoteAddress: address,
    })
    expect(limited.statusCode).toBe(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    expect(limited.json()).toEqual({
      errors: [
        expect.objectContaining({
          errorCode: 'validation_error',
          additionalCode: 'GEN-4290',
          correlationID: 'corr-429',
          errorDescription: expect.stringMatching(/retry in \d+ s/),
        }),
      ],
    })
  })
})
