import jwt from 'jsonwebtoken'
import jwksClient from 'jwks-rsa'
import { decodeProtectedHeader } from 'jose'
import * as oidc from 'openid-client'
import { beforeAll, describe, expect, it } from 'vitest'
import { createContext } from '../../src/app/context.js'
import { loadConfig } from '../../src/app/config.js'
import { freePort } from '../support/spawn-service.js'
import { basic, TEST_SECRET, type TestApp } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'

// Third-party clients, unchanged, against a listening server: what an integrator would use.
const port = await freePort()
const base = `http://127.0.0.1:${port}`
const t = useTestApp({ PORT: String(port), MAILROOM_PUBLIC_URL: base })
beforeAll(async () => {
  await t.app.listen({ port, host: '127.0.0.1' })
})

describe('standard OAuth and JWT clients', () => {
  it('openid-client discovers the server from the issuer (RFC 8414) and gets a token with client_secret_basic', async () => {
    const c = await t.newClient()
    const config = await oidc.discovery(
      new URL(t.ctx.issuer),
      c.clientId,
      undefined,
      oidc.ClientSecretBasic(c.clientSecret),
      {
        algorithm: 'oauth2',
        execute: [oidc.allowInsecureRequests],
      },
    )
    expect(config.serverMetadata().token_endpoint).toBe(`${base}/auth/api/v1/token`)
    const token = await oidc.clientCredentialsGrant(config, { scope: 'psapi' })
    expect(token.token_type.toLowerCase()).toBe('bearer')
    const session = await fetch(`${base}/api/v1/session`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    })
    expect(session.status).toBe(200)
  })

  it('openid-client gets a token with client_secret_post, as the metadata offers', async () => {
    const c = await t.newClient()
    const config = await oidc.discovery(
      new URL(t.ctx.issuer),
      c.clientId,
      undefined,
      oidc.ClientSecretPost(c.clientSecret),
      {
        algorithm: 'oauth2',
        execute: [oidc.allowInsecureRequests],
      },
    )
    const token = await oidc.clientCredentialsGrant(config)
    expect(token.scope).toBe('psapi')
    expect(decodeProtectedHeader(token.access_token).alg).toBe('ES256')
  })

  it('jsonwebtoken verifies a token with the key jwks-rsa fetched from the JWKS', async () => {
    const c = await t.newClient()
    const res = await fetch(`${base}/auth/api/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(c.clientId, c.clientSecret) },
    })
    const { access_token: token } = (await res.json()) as { access_token: string }
    const jwks = jwksClient({ jwksUri: `${base}/auth/.well-known/jwks.json` })
    const key = await jwks.getSigningKey(decodeProtectedHeader(token).kid)
    const payload = jwt.verify(token, key.getPublicKey(), {
      issuer: t.ctx.issuer,
      algorithms: ['ES256', 'RS256'],
      clockTimestamp: Math.floor(t.clock.now().getTime() / 1000),
    })
    expect(payload).toMatchObject({ sub: c.clientId, subId: c.subId, scope: 'psapi' })
  })
})

describe('token request credentials', () => {
  const TOKEN_URL = '/auth/api/v1/token'
  let n = 0
  const from = () => `10.9.0.${++n}`

  it('accepts client_secret_post credentials in a form and in JSON', async () => {
    const c = await t.newClient()
    const form = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      remoteAddress: from(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: c.clientId,
        client_secret: c.clientSecret,
      }).toString(),
    })
    expect(form.statusCode).toBe(200)
    const json = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      remoteAddress: from(),
      payload: { client_id: c.clientId, client_secret: c.clientSecret },
    })
    expect(json.statusCode).toBe(200)
    const wrong = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      remoteAddress: from(),
      payload: { client_id: c.clientId, client_secret: 'wrong-secret' },
    })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json().error).toBe('invalid_client')
  })

  it('refuses two authentication methods in one request (RFC 6749 §2.3)', async () => {
    const c = await t.newClient()
    const res = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      remoteAddress: from(),
      headers: { authorization: basic(c.clientId, c.clientSecret) },
      payload: { client_id: c.clientId, client_secret: c.clientSecret },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toBe('invalid_request')
  })

  it.each([
    ['an unsupported content type', { 'content-type': 'application/xml' }, '<a/>'],
    ['malformed JSON', { 'content-type': 'application/json' }, '{"grant_type":'],
    ['a malformed form', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=%ZZ'],
    ['a body over the limit', { 'content-type': 'application/x-www-form-urlencoded' }, `pad=${'x'.repeat(64 * 1024)}`],
    ['a text body', { 'content-type': 'text/plain' }, 'hello'],
  ])(
    'answers a request without credentials and %s with 401, before reading the body',
    async (_label, headers, payload) => {
      const res = await t.inject({ method: 'POST', url: TOKEN_URL, remoteAddress: from(), headers, payload })
      expect(res.statusCode).toBe(401)
      expect(res.json()).toMatchObject({ errorCode: 'invalid_client', error: 'invalid_client' })
    },
  )

  it('answers a wrong Basic secret with 401 even when the body is unreadable', async () => {
    const c = await t.newClient()
    const res = await t.inject({
      method: 'POST',
      url: TOKEN_URL,
      remoteAddress: from(),
      headers: { authorization: basic(c.clientId, 'wrong-secret'), 'content-type': 'application/xml' },
      payload: '<a/>',
    })
    expect(res.statusCode).toBe(401)
  })
})

describe('signing algorithms', () => {
  it('signs with EdDSA when configured, and a later switch to ES256 keeps the EdDSA tokens valid until they expire', async () => {
    const ed = createContext({
      config: loadConfig({ ...envOf(t), TOKEN_SIGNING_ALG: 'EdDSA' }),
      database: t.ctx.database,
      masterSecret: TEST_SECRET,
      clock: t.clock,
    })
    await ed.keys.init()
    const c = await t.newClient()
    const edToken = (await ed.tokens.issueToken({ clientId: c.clientId, subId: c.subId, status: 'active' }))
      .access_token
    expect(decodeProtectedHeader(edToken).alg).toBe('EdDSA')

    const es = createContext({
      config: loadConfig(envOf(t)),
      database: t.ctx.database,
      masterSecret: TEST_SECRET,
      clock: t.clock,
    })
    await es.keys.init()
    const esToken = (await es.tokens.issueToken({ clientId: c.clientId, subId: c.subId, status: 'active' }))
      .access_token
    expect(decodeProtectedHeader(esToken).alg).toBe('ES256')
    await expect(es.tokens.verifyAccessToken(edToken)).resolves.toMatchObject({ clientId: c.clientId })
    await expect(es.tokens.verifyAccessToken(esToken)).resolves.toMatchObject({ clientId: c.clientId })
    expect(es.keys.jwks().keys.map((k) => k.alg)).toEqual(expect.arrayContaining(['EdDSA', 'ES256']))

    // A token whose header claims another algorithm than its key's is refused.
    const [, payload, sig] = edToken.split('.') as [string, string, string]
    const header = Buffer.from(JSON.stringify({ ...decodeProtectedHeader(edToken), alg: 'ES256' })).toString(
      'base64url',
    )
    await expect(es.tokens.verifyAccessToken(`${header}.${payload}.${sig}`)).rejects.toThrow(/algorithm/)
    await t.ctx.keys.reload()
  })

  it('signs with RS256 when configured, verifiable by jsonwebtoken', async () => {
    const rs = createContext({
      config: loadConfig({ ...envOf(t), TOKEN_SIGNING_ALG: 'RS256' }),
      database: t.ctx.database,
      masterSecret: TEST_SECRET,
      clock: t.clock,
    })
    await rs.keys.init()
    const c = await t.newClient()
    const token = (await rs.tokens.issueToken({ clientId: c.clientId, subId: c.subId, status: 'active' })).access_token
    const jwk = rs.keys.jwks().keys.find((k) => k.kid === decodeProtectedHeader(token).kid)!
    const { createPublicKey } = await import('node:crypto')
    const payload = jwt.verify(token, createPublicKey({ key: jwk as never, format: 'jwk' }), {
      algorithms: ['RS256'],
      clockTimestamp: Math.floor(t.clock.now().getTime() / 1000),
    })
    expect(payload).toMatchObject({ sub: c.clientId })
    await t.ctx.keys.init()
  })
})

function envOf(app: TestApp): Record<string, string> {
  return {
    MAILROOM_ENV: 'development',
    MAILROOM_DATA_DIR: app.config.dataDir,
    MAILROOM_SECRET: TEST_SECRET,
    LOG_LEVEL: 'silent',
    PORT: String(app.config.port),
    MAILROOM_PUBLIC_URL: app.config.publicUrl,
  }
}
