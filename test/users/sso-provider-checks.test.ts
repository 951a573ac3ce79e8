import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseSsoCommand, runSsoCommand } from '../../src/app/cli/sso.js'
import { parseUsersCommand, runUsersCommand } from '../../src/app/cli/users.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// What mailroom checks of a provider's answers, against a provider made by hand so it can lie: an
// id_token signed by a key it does not publish, an email no user could have, documents too big, and
// an address mailroom must not call at all.

const CLIENT_ID = 'mailroom-console'
const ownPage = { 'sec-fetch-site': 'same-origin' }

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
function signJwt(key: KeyObject, kid: string, claims: Record<string, unknown>): string {
  const input = `${b64url({ alg: 'RS256', kid, typ: 'JWT' })}.${b64url(claims)}`
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`
}

interface FakeProvider {
  issuer: string
  /** Requests it received, by path. */
  seen: string[]
  /** What the next id_token says, and which key signs it. */
  next: { email: unknown; signer: 'published' | 'other'; sub?: string }
  hugeDiscovery: boolean
  close(): Promise<void>
}

async function startFakeProvider(): Promise<FakeProvider> {
  const published = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  let nonce = ''
  const fake: FakeProvider = {
    issuer,
    seen: [],
    next: { email: 'dana@acme.example', signer: 'published' },
    hugeDiscovery: false,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  const json = (res: import('node:http').ServerResponse, body: unknown) => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify(body))
  }
  server.on('request', (req, res) => {
    const url = new URL(req.url!, issuer)
    fake.seen.push(url.pathname)
    if (url.pathname === '/.well-known/openid-configuration') {
      if (fake.hugeDiscovery) return json(res, { issuer, padding: 'x'.repeat(2_000_000) })
      return json(res, {
        issuer,
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      })
    }
    if (url.pathname === '/jwks')
      return json(res, {
        keys: [{ ...published.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' }],
      })
    if (url.pathname === '/token') {
      const now = Math.floor(Date.now() / 1000)
      const claims = {
        iss: issuer,
        aud: CLIENT_ID,
        sub: fake.next.sub ?? 'dana',
        email: fake.next.email,
        email_verified: true,
        nonce,
        iat: now,
        exp: now + 300,
      }
      const key = fake.next.signer === 'published' ? published.privateKey : other.privateKey
      return json(res, {
        access_token: 'at',
        token_type: 'Bearer',
        expires_in: 300,
        id_token: signJwt(key, 'k1', claims),
      })
    }
    res.statusCode = 404
    res.end()
  })
  // The nonce of the start the test makes: the token endpoint echoes it, as a provider does.
  return Object.assign(fake, {
    setNonce: (n: string) => {
      nonce = n
    },
  })
}

type Fake = FakeProvider & { setNonce(n: string): void }

const t = useTestApp({ MAILROOM_SSO_ALLOW_HTTP: 'true', MAILROOM_SSO_ALLOW_CIDRS: '127.0.0.0/8' })
const acme = useClient(t, 'sso-checks')
let fake: Fake
beforeAll(async () => {
  fake = (await startFakeProvider()) as Fake
  const res = await t.inject({
    method: 'PUT',
    url: '/api/v1/sso',
    headers: acme.auth,
    payload: {
      enabled: true,
      issuer: fake.issuer,
      clientId: CLIENT_ID,
      clientSecret: 'a-secret-0123456789',
      emailDomains: ['acme.example'],
      provisionUsers: true,
    },
  })
  expect(res.statusCode, res.body).toBe(200)
  await runSsoCommand(t.ctx, parseSsoCommand(['grant', 'acme.example', acme.subId]), () => {})
})
afterAll(async () => fake?.close())

/** A whole sign-on, the provider's login skipped: start, then the callback with a code. */
async function signOn(app = t): Promise<string> {
  const started = await app.inject({ url: '/console/api/sso/start?email=dana%40acme.example', headers: ownPage })
  const location = String(started.headers.location)
  if (!location.startsWith(fake.issuer)) return location
  const q = new URL(location).searchParams
  fake.setNonce(q.get('nonce')!)
  const flow = started.cookies.find((c) => c.name === 'mailroom_sso')!
  const back = await app.inject({
    url: `/console/api/sso/callback?code=c0de&state=${q.get('state')}`,
    cookies: { mailroom_sso: flow.value },
  })
  expect(back.statusCode, back.body).toBe(303)
  return String(back.headers.location)
}

describe('the provider’s answers', () => {
  it('signs in with an id_token signed by a published key, and refuses one signed by another key', async () => {
    fake.next = { email: 'dana@acme.example', signer: 'published' }
    expect(await signOn()).toBe('/console/')
    fake.next = { email: 'dana@acme.example', signer: 'other' }
    expect(await signOn()).toBe('/console/?sso_error=failed')
    expect(fake.seen).toContain('/jwks')
  })

  it('refuses an email no user could have (no_email), never a 500', async () => {
    // Someone the provider has not signed in here before (Dana, its `sub` dana, is known by that id).
    fake.next = { email: `${'a'.repeat(3000)}@acme.example`, signer: 'published', sub: 'someone-new' }
    expect(await signOn()).toBe('/console/?sso_error=no_email')
    fake.next = { email: 'not an email', signer: 'published', sub: 'someone-new' }
    expect(await signOn()).toBe('/console/?sso_error=no_email')
  })

  it('signs in again once an admin’s password reset forgot the identity, after the account at the provider was made anew', async () => {
    fake.next = { email: 'dana@acme.example', signer: 'published' }
    expect(await signOn()).toBe('/console/')
    // Dana's account at the provider is made anew: another sub, the same email.
    fake.next = { email: 'dana@acme.example', signer: 'published', sub: 'dana-again' }
    expect(await signOn()).toBe('/console/?sso_error=identity_mismatch')
    const users = (await t.inject({ url: '/api/v1/users', headers: acme.auth })).json().users as Array<{
      userId: string
      email: string
    }>
    const dana = users.find((u) => u.email === 'dana@acme.example')!
    const reset = await t.inject({
      method: 'POST',
      url: `/api/v1/users/${dana.userId}/password`,
      headers: acme.auth,
      payload: {},
    })
    expect(reset.statusCode, reset.body).toBe(200)
    expect(await signOn()).toBe('/console/')
    // Now the new identity is the one recorded: the old account is refused.
    fake.next = { email: 'dana@acme.example', signer: 'published' }
    expect(await signOn()).toBe('/console/?sso_error=identity_mismatch')
  })

  it('keeps a one-time password set on the server (the break-glass door) when the user signs on', async () => {
    const lines: string[] = []
    await runUsersCommand(
      t.ctx,
      parseUsersCommand(['create', '--subscription', 'sso-checks', '--email', 'glass@acme.example', '--role', 'admin']),
      (line) => lines.push(line),
    )
    const password = /password: (\S+)/.exec(lines.join('\n'))![1]!
    fake.next = { email: 'glass@acme.example', signer: 'published', sub: 'glass' }
    expect(await signOn()).toBe('/console/')
    const res = await t.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: { email: 'glass@acme.example', password },
    })
    expect(res.statusCode, res.body).toBe(200)
  })

  it('refuses a discovery document past the size cap', async () => {
    fake.hugeDiscovery = true
    try {
      // Another client id: the settings change, so discovery runs afresh.
      await t.inject({
        method: 'PUT',
        url: '/api/v1/sso',
        headers: acme.auth,
        payload: {
          enabled: true,
          issuer: fake.issuer,
          clientId: 'huge',
          clientSecret: 'a-secret-0123456789',
          emailDomains: ['acme.example'],
        },
      })
      expect(await signOn()).toBe('/console/?sso_error=failed')
    } finally {
      fake.hugeDiscovery = false
    }
  })
})

describe('an issuer at a private address', () => {
  const strict = useTestApp({ MAILROOM_SSO_ALLOW_HTTP: 'true' })
  const admin = useClient(strict, 'sso-private')

  it('is never called without MAILROOM_SSO_ALLOW_CIDRS: loopback, private and link-local issuers fail', async () => {
    for (const issuer of [fake.issuer, 'http://10.0.0.1', 'http://169.254.169.254', 'http://localhost:9']) {
      const before = fake.seen.length
      const put = await strict.inject({
        method: 'PUT',
        url: '/api/v1/sso',
        headers: admin.auth,
        payload: {
          enabled: true,
          issuer,
          clientId: CLIENT_ID,
          clientSecret: `s-${issuer}`,
          emailDomains: ['private.example'],
        },
      })
      expect(put.statusCode, put.body).toBe(200)
      await runSsoCommand(strict.ctx, parseSsoCommand(['grant', 'private.example', admin.subId]), () => {})
      const started = await strict.inject({
        url: '/console/api/sso/start?email=dana%40private.example',
        headers: ownPage,
      })
      expect(started.headers.location, issuer).toBe('/console/?sso_error=failed')
      expect(fake.seen.length, issuer).toBe(before)
    }
  })
})
