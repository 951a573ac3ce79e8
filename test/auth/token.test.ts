import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import { describe, expect, it } from 'vitest'
import { createContext } from '../../src/app/context.js'
import { basic, TEST_SECRET } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp({ TOKEN_FAILURE_LIMIT: '5', TOKEN_FAILURE_WINDOW_SECONDS: '60' })

const TOKEN_URL = '/auth/api/v1/token'
/** One address may fail 5 × TOKEN_FAILURE_LIMIT times across client ids (one client id: TOKEN_FAILURE_LIMIT). */
const ADDRESS_LIMIT = 25
let ip = 0
/** Each test calls from its own address so the per-address failure limit stays local to it. */
const from = () => `10.0.0.${++ip}`

async function newCreds() {
  const c = await t.newClient()
  return { ...c, authorization: basic(c.clientId, c.clientSecret) }
}

describe('POST /auth/api/v1/token', () => {
  it('issues a 4-hour psapi token for an empty body, exactly as the contract says', async () => {
    const c = await newCreds()
    const res = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { authorization: c.authorization },
      remoteAddress: from(),
    })
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    const body = res.json()
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type'])
    expect(body).toMatchObject({ expires_in: 14400, scope: 'psapi', token_type: 'Bearer' })

    const jwks = await t.inject({ method: 'GET', url: '/auth/.well-known/jwks.json' })
    const { payload, protectedHeader } = await jwtVerify(body.access_token, createLocalJWKSet(jwks.json()), {
      issuer: t.ctx.issuer,
      currentDate: t.clock.now(),
    })
    expect(protectedHeader.alg).toBe('ES256')
    expect(protectedHeader.kid).toBe(t.ctx.keys.signingKey().kid)
    expect(payload).toMatchObject({
      iss: 'http://localhost:8080/auth/us',
      sub: c.clientId,
      subId: c.subId,
      scope: 'psapi',
    })
    expect(payload.exp! - payload.iat!).toBe(14400)
    expect(typeof payload.jti).toBe('string')
  })

  it('accepts a JSON body, an empty JSON body and a form body with the psapi scope', async () => {
    const c = await newCreds()
    const json = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { authorization: c.authorization },
      payload: { grant_type: 'client_credentials' },
      remoteAddress: from(),
    })
    expect(json.statusCode).toBe(200)
    const empty = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { authorization: c.authorization, 'content-type': 'application/json' },
      payload: '',
      remoteAddress: from(),
    })
    expect(empty.statusCode).toBe(200)
    const form = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      remoteAddress: from(),
      headers: { authorization: c.authorization, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&scope=psapi',
    })
    expect(form.statusCode).toBe(200)
    expect(form.json().scope).toBe('psapi')
  })

  it('refuses other grant types, other scopes and unreadable bodies with OAuth errors', async () => {
    const c = await newCreds()
    const h = { authorization: c.authorization, 'content-type': 'application/x-www-form-urlencoded' }
    const grant = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: h,
      payload: 'grant_type=password&username=a&password=b',
      remoteAddress: from(),
    })
    expect(grant.statusCode).toBe(400)
    expect(grant.json()).toEqual({ error: 'unsupported_grant_type', error_description: expect.any(String) })
    const scope = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: h,
      payload: 'grant_type=client_credentials&scope=admin',
      remoteAddress: from(),
    })
    expect(scope.statusCode).toBe(400)
    expect(scope.json().error).toBe('invalid_scope')
    const bad = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { authorization: c.authorization, 'content-type': 'application/json' },
      payload: '{"grant_type":',
      remoteAddress: from(),
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error).toBe('invalid_request')
    const xml = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { authorization: c.authorization, 'content-type': 'application/xml' },
      payload: '<a/>',
      remoteAddress: from(),
    })
    expect(xml.statusCode).toBe(415)
    expect(xml.json().error).toBe('invalid_request')
  })

  it('refuses a JSON body with another grant type, and JSON that is not an object', async () => {
    const c = await newCreds()
    const h = { authorization: c.authorization, 'content-type': 'application/json' }
    const grant = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: h,
      payload: { grant_type: 'authorization_code' },
      remoteAddress: from(),
    })
    expect(grant.statusCode).toBe(400)
    expect(grant.json()).toEqual({ error: 'unsupported_grant_type', error_description: expect.any(String) })
    for (const payload of ['[]', '"client_credentials"', '42']) {
      const res = await t.inject({ method: 'POST', url: TOKEN_URL, headers: h, payload, remoteAddress: from() })
      expect(res.statusCode, payload).toBe(400)
      expect(res.json().error, payload).toBe('invalid_request')
      expect(res.headers['cache-control']).toBe('no-store')
    }
  })

  it('refuses a body over the limit with 413 and an OAuth error', async () => {
    const c = await newCreds()
    const res = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      remoteAddress: from(),
      headers: { authorization: c.authorization, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=client_credentials&pad=${'x'.repeat(2 * 1024 * 1024)}`,
    })
    expect(res.statusCode).toBe(413)
    expect(res.json().error).toBe('invalid_request')
  })

  const invalidClientBody = {
    errorCode: 'invalid_client',
    errorSummary: expect.any(String),
    errorLink: 'invalid_client',
    errorId: expect.any(String),
    errorCauses: [],
    error: 'invalid_client',
    error_description: expect.any(String),
  }

  it.each([
    ['no credentials', () => undefined],
    ['a wrong secret', (c: { clientId: string }) => basic(c.clientId, 'wrong-secret')],
    ['an unknown client', () => basic('mrc_nobody', 'whatever-secret')],
    ['a malformed Basic header', () => 'Basic !!!'],
    ['a bearer header', () => 'Bearer abc'],
  ])('answers %s with the contract 401 body', async (_label, header) => {
    const c = await newCreds()
    const authorization = header(c)
    const res = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: authorization ? { authorization } : {},
      remoteAddress: from(),
    })
    expect(res.statusCode).toBe(401)
    expect(res.headers['www-authenticate']).toMatch(/^Basic realm="mailroom"/)
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.json()).toEqual(invalidClientBody)
  })

  it('refuses a disabled client', async () => {
    const c = await newCreds()
    await t.ctx.clients.setStatus(c.clientId, 'disabled')
    const res = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { authorization: c.authorization },
      remoteAddress: from(),
    })
    expect(res.statusCode).toBe(401)
    expect(res.json()).toEqual(invalidClientBody)
  })

  it('rate limits repeated failures of one client id from one address, even with the right secret, until the window ends', async () => {
    const c = await newCreds()
    const guesser = from()
    for (let i = 0; i < 5; i++) {
      const res = await t.inject({
        method: 'POST',
        url: TOKEN_URL,
        headers: { authorization: basic(c.clientId, `wrong-${i}`) },
        remoteAddress: guesser,
      })
      expect(res.statusCode).toBe(401)
    }
    const blocked = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { authorization: c.authorization },
      remoteAddress: guesser,
    })
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: expect.stringMatching(/retry in \d+ s/),
    })
    expect(blocked.headers['cache-control']).toBe('no-store')
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0)
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60)
    t.clock.advance(61_000)
    const after = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { authorization: c.authorization },
      remoteAddress: guesser,
    })
    expect(after.statusCode).toBe(200)
  })

  it('does not lock the real client out when others guess its secret from elsewhere', async () => {
    const c = await newCreds()
    for (let i = 0; i < 20; i++) {
      const res = await t.inject({
        method: 'POST',
        url: TOKEN_URL,
        headers: { authorization: basic(c.clientId, `wrong-${i}`) },
        remoteAddress: `198.51.100.${i}`,
      })
      expect(res.statusCode).toBe(401)
    }
    const own = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { authorization: c.authorization },
      remoteAddress: from(),
    })
    expect(own.statusCode).toBe(200)
    t.clock.advance(61_000)
  })

  it('does not let X-Forwarded-For pick a new address for every guess unless a proxy is trusted', async () => {
    const address = from()
    const statuses: number[] = []
    for (let i = 0; i < ADDRESS_LIMIT + 2; i++) {
      const res = await t.inject({
        method: 'POST',
        url: TOKEN_URL,
        headers: { authorization: basic(`mrc_xff${i}`, 'nope-nope'), 'x-forwarded-for': `192.0.2.${i}` },
        remoteAddress: address,
      })
      statuses.push(res.statusCode)
    }
    expect(statuses).toEqual([...Array<number>(ADDRESS_LIMIT).fill(401), 429, 429])
    t.clock.advance(61_000)
  })

  it('rate limits repeated failures from one address across client ids', async () => {
    const address = from()
    for (let i = 0; i < ADDRESS_LIMIT; i++) {
      await t.inject({
        method: 'POST',
        url: TOKEN_URL,
        headers: { authorization: basic(`mrc_guess${i}`, 'nope-nope') },
        remoteAddress: address,
      })
    }
    const c = await newCreds()
    const blocked = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { authorization: c.authorization },
      remoteAddress: address,
    })
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json().error).toBe('temporarily_unavailable')
    const elsewhere = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { authorization: c.authorization },
      remoteAddress: from(),
    })
    expect(elsewhere.statusCode).toBe(200)
    t.clock.advance(61_000)
  })
})

describe('discovery and keys', () => {
  it('publishes RFC 8414 metadata naming the token endpoint and JWKS', async () => {
    const res = await t.inject({ method: 'GET', url: '/auth/.well-known/oauth-authorization-server' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      issuer: t.ctx.issuer,
      token_endpoint: 'http://localhost:8080/auth/api/v1/token',
      jwks_uri: 'http://localhost:8080/auth/.well-known/jwks.json',
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: ['psapi'],
      response_types_supported: [],
    })
    // RFC 8414 §3: also at the address derived from the issuer, where standard clients look.
    const derived = await t.inject({
      method: 'GET',
      url: `/.well-known/oauth-authorization-server${new URL(t.ctx.issuer).pathname}`,
    })
    expect(derived.statusCode).toBe(200)
    expect(derived.json()).toEqual(res.json())
  })

  it('rotates keys: old tokens keep working until they expire, new tokens use the new key, both are published', async () => {
    const c = await t.newClient()
    const oldKid = decodeProtectedHeader(c.token).kid
    const newKid = await t.ctx.keys.rotate()
    expect(newKid).not.toBe(oldKid)
    const jwks = (await t.inject({ method: 'GET', url: '/auth/.well-known/jwks.json' })).json<{
      keys: Array<{ kid: string; d?: string }>
    }>()
    expect(jwks.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([oldKid, newKid]))
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true)
    expect((await t.inject({ method: 'GET', url: '/api/v1/session', headers: c.auth })).statusCode).toBe(200)
    const fresh = await t.newClient()
    expect(decodeProtectedHeader(fresh.token).kid).toBe(newKid)

    // Once every token of the old key has expired, the key is no longer published.
    t.clock.advance(5 * 3600 * 1000)
    await t.ctx.keys.reload()
    const later = (await t.inject({ method: 'GET', url: '/auth/.well-known/jwks.json' })).json<{
      keys: Array<{ kid: string }>
    }>()
    expect(later.keys.map((k) => k.kid)).toEqual([newKid])
    t.clock.advance(-5 * 3600 * 1000)
    await t.ctx.keys.reload()
  })

  it('honours tokens across a restart: a new process on the same database verifies them', async () => {
    const c = await t.newClient()
    const restarted = createContext({
      config: t.config,
      database: t.ctx.database,
      masterSecret: TEST_SECRET,
      clock: t.clock,
    })
    await restarted.keys.init()
    await expect(restarted.tokens.verifyAccessToken(c.token)).resolves.toMatchObject({
      clientId: c.clientId,
      subId: c.subId,
    })
  })

  it('refuses tokens of a client disabled by another process within the status cache time', async () => {
    const c = await t.newClient()
    expect((await t.inject({ method: 'GET', url: '/api/v1/session', headers: c.auth })).statusCode).toBe(200)
    // As `mailroom clients disable` does from its own process: straight to the database.
    await t.ctx.db
      .updateTable('api_clients')
      .set({ status: 'disabled', disabled_at: new Date() })
      .where('client_id', '=', c.clientId)
      .execute()
    t.clock.advance(t.config.clientStatusCacheSeconds * 1000 + 1)
    const res = await t.inject({ method: 'GET', url: '/api/v1/session', headers: c.auth })
    expect(res.statusCode).toBe(401)
    expect(res.json().message).toMatch(/disabled/)
    expect(t.config.clientStatusCacheSeconds).toBeLessThanOrEqual(30)
  })

  it('issues no new token to a client disabled by another process once the status cache time has passed', async () => {
    const c = await newCreds()
    expect(
      (
        await t.inject({
          method: 'POST',
          url: TOKEN_URL,
          headers: { authorization: c.authorization },
          remoteAddress: from(),
        })
      ).statusCode,
    ).toBe(200)
    await t.ctx.db
      .updateTable('api_clients')
      .set({ status: 'disabled', disabled_at: new Date() })
      .where('client_id', '=', c.clientId)
      .execute()
    t.clock.advance(t.config.clientStatusCacheSeconds * 1000 + 1)
    const res = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { authorization: c.authorization },
      remoteAddress: from(),
    })
    expect(res.statusCode).toBe(401)
  })
})
