import type { InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { signWith, tamper } from '../support/auth-matrix.js'
import type { TestApp, TestClient } from '../support/build-test-app.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

/**
 * The shared auth matrix (STYLE.md): every route the app declares, found through Fastify's onRoute
 * hook as the app is built, is either declared public below (with the reason) or put through every
 * bad-credential case. A new route is in the matrix the day it is added, and one that answers
 * without a token fails here until it is protected or declared public.
 */
const PUBLIC: Array<[string | RegExp, string]> = [
  ['/healthz', 'liveness probe (README: unauthenticated, for the infrastructure)'],
  ['/readyz', 'readiness probe (idem)'],
  ['/metrics', 'Prometheus scrape (idem)'],
  ['/openapi.json', 'the API description'],
  [/^\/docs(\/|$)/, 'the API reference page and its assets'],
  [/^\/console(\/\*)?$/, 'the browser console: its page and static files; its data comes from the API'],
  ['/auth/api/v1/token', 'the token endpoint: client credentials, with its own 401 body (CONTRACT)'],
  [/^\/auth\/\.well-known\//, 'JWKS (RFC 7517) and authorization server metadata (RFC 8414)'],
  [/^\/\.well-known\/oauth-authorization-server\//, 'authorization server metadata at its RFC 8414 §3 address'],
  ['/console/api/session', 'console sign-in and sign-out: email and password, then the session cookie (test/users)'],
  [
    /^\/console\/api\/session(\/password|s|s\/:sessionId)$/,
    "the signed-in user's own password and sessions: the session cookie, never a token (test/users/own-sessions.test.ts)",
  ],
  [
    '/console/api/sso/options',
    "the sign-in page's question before anyone is signed in: does this email's granted domain sign in with its identity provider (test/users/sso-api.test.ts)",
  ],
  [
    /^\/console\/api\/sso\/(start|callback)$/,
    "single sign-on: browser navigations to and back from the subscription's identity provider; the sealed flow cookie and the provider's id_token are the credentials (test/users/sso-*.test.ts)",
  ],
  ['/notifications/unsubscribe', "the emails' unsubscribe link (RFC 8058): its HMAC-signed token is the credential"],
  [
    /^\/notifications\/sms\/:subId\/(inbound|status)$/,
    "an SMS provider's incoming texts and delivery receipts: the request signature (X-Twilio-Signature) with the facility's auth token is the credential (test/notifications/sms-messages.test.ts)",
  ],
  [
    /^\/scim\/v2(\/|$)/,
    'SCIM 2.0: its own per-subscription tokens and SCIM error bodies (RFC 7644 §3.12), refused in test/directory/scim-protocol.test.ts',
  ],
]
const isPublic = (url: string) => PUBLIC.some(([m]) => (typeof m === 'string' ? m === url : m.test(url)))

type Method = NonNullable<InjectOptions['method']>

interface Route {
  method: Method
  url: string
  documented: boolean
  security: Array<Record<string, unknown>>
}

const declared: RouteOptions[] = []
const t = useTestApp({}, { onRoute: (route) => declared.push(route) })
const me = useClient(t)
let routes: Route[]
let protectedRoutes: Route[]

beforeAll(() => {
  routes = declared.flatMap((r) =>
    [r.method].flat().map((method) => {
      const schema = (r.schema ?? {}) as { hide?: boolean; security?: Array<Record<string, unknown>> }
      return { method: method as Method, url: r.url, documented: schema.hide !== true, security: schema.security ?? [] }
    }),
  )
  protectedRoutes = routes.filter((r) => !isPublic(r.url))
})

/** A request to the route, its parameters filled with a placeholder: the token is checked before they are. */
const call = (r: Route, authorization?: string): Promise<LightMyRequestResponse> =>
  t.app.inject({
    method: r.method,
    url: r.url.replace(/:\w+/g, 'x').replace('*', 'x'),
    headers: authorization === undefined ? {} : { authorization },
  })

/** How a refusal differs from RFC 6750 §3 as the contract has it (401, or 403 for scope): `{message}` and a Bearer challenge. */
function problems(res: LightMyRequestResponse, method: Method, status: 401 | 403, error?: string): string[] {
  const found: string[] = []
  if (res.statusCode !== status) found.push(`answered ${res.statusCode}`)
  const challenge = String(res.headers['www-authenticate'] ?? '')
  if (!challenge.startsWith('Bearer realm="mailroom"')) found.push(`challenge ${JSON.stringify(challenge)}`)
  if (error && !challenge.includes(`error="${error}"`)) found.push(`challenge without error="${error}"`)
  if (method !== 'HEAD') {
    const keys = res.headers['content-type']?.toString().startsWith('application/json')
      ? Object.keys(res.json<object>())
      : []
    if (keys.join() !== 'message') found.push(`body ${res.body.slice(0, 80)}`)
  }
  return found
}

/** Every protected route's answer to `authorization`, as the list of those that did not refuse it as they should. */
async function notRefusing(
  authorization: string | undefined,
  status: 401 | 403 = 401,
  error?: string,
): Promise<string[]> {
  const failures: string[] = []
  for (const r of protectedRoutes) {
    const found = problems(await call(r, authorization), r.method, status, error)
    if (found.length > 0) failures.push(`${r.method} ${r.url}: ${found.join(', ')}`)
  }
  return failures
}

const HOURS_5 = 5 * 3600_000

describe('the routes the app declares', () => {
  it('are found, every operation of the OpenAPI document among them', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, unknown>>
    }>()
    const census = new Set(routes.map((r) => `${r.method} ${r.url}`))
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    )
    expect(operations.length).toBeGreaterThan(0)
    expect(operations.filter((o) => !census.has(o))).toEqual([])
    expect(protectedRoutes.length).toBeGreaterThan(0)
  })

  it('declare no public route that does not exist', () => {
    expect(
      PUBLIC.filter(([m]) => !routes.some((r) => (typeof m === 'string' ? m === r.url : m.test(r.url)))).map(([m]) =>
        String(m),
      ),
    ).toEqual([])
  })

  it('are documented as needing a bearer token exactly when they are protected', () => {
    const wrong = routes.filter((r) => r.documented && r.security.some((s) => 'bearerAuth' in s) !== !isPublic(r.url))
    expect(
      wrong.map((r) => `${r.method} ${r.url}`),
      'protect the route, or declare it in PUBLIC with the reason',
    ).toEqual([])
  })
})

describe('every protected route', () => {
  it('refuses a request without a token (so a new route is protected, or declared public)', async () => {
    expect(await notRefusing(undefined), 'protect the route, or declare it in PUBLIC with the reason').toEqual([])
  })

  it.each<[string, (c: TestClient, t: TestApp) => Promise<string> | string]>([
    ['an empty bearer', () => 'Bearer'],
    ['a malformed token', () => 'Bearer not-a-jwt'],
    ['another scheme', (c) => `Token ${c.token}`],
    ['a bad signature', (c) => `Bearer ${tamper(c.token)}`],
    ['an unsigned token (alg none)', async (c, app) => `Bearer ${await signWith(app, c, { alg: 'none' })}`],
    ['another issuer', async (c, app) => `Bearer ${await signWith(app, c, { iss: 'https://evil.example/auth/us' })}`],
  ])("refuses %s with the contract's 401", async (_label, authorization) => {
    expect(await notRefusing(await authorization(me, t), 401, 'invalid_token')).toEqual([])
  })

  it("refuses an expired token with the contract's 401", async () => {
    const expiring = await t.newClient()
    t.clock.advance(HOURS_5)
    try {
      expect(await notRefusing(expiring.auth.authorization, 401, 'invalid_token')).toEqual([])
    } finally {
      t.clock.advance(-HOURS_5)
    }
  })

  it("refuses the token of a disabled client with the contract's 401", async () => {
    const disabled = await t.newClient()
    await t.ctx.clients.setStatus(disabled.clientId, 'disabled')
    expect(await notRefusing(disabled.auth.authorization, 401, 'invalid_token')).toEqual([])
  })

  it('refuses a token without the API scope with 403 and the same body (RFC 6750 §3.1 insufficient_scope)', async () => {
    expect(await notRefusing(`Bearer ${await signWith(t, me, { scope: 'other' })}`, 403, 'insufficient_scope')).toEqual(
      [],
    )
  })

  it("lets a valid token through, so each refusal above is the token's", async () => {
    const refused: string[] = []
    for (const r of protectedRoutes) {
      const res = await call(r, me.auth.authorization)
      if (res.statusCode === 401 || res.statusCode === 403) refused.push(`${r.method} ${r.url}: ${res.statusCode}`)
    }
    expect(refused).toEqual([])
  })
})
