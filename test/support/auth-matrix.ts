import { SignJWT } from 'jose'
import type { InjectOptions } from 'fastify'
import { expect, it } from 'vitest'
import type { TestApp, TestClient } from './build-test-app.js'

export interface ProtectedRoute {
  method: InjectOptions['method']
  url: string
  payload?: unknown
}

/** The token with one character of its signature changed. */
export function tamper(token: string): string {
  const [h, p, s] = token.split('.') as [string, string, string]
  const flipped = s[5] === 'A' ? 'B' : 'A'
  return `${h}.${p}.${s.slice(0, 5)}${flipped}${s.slice(6)}`
}

/** A token for `client` as the service would sign it, but for the overrides; `alg: 'none'` leaves it unsigned. */
export async function signWith(
  t: TestApp,
  client: TestClient,
  overrides: { iss?: string; scope?: string; alg?: 'none' },
): Promise<string> {
  if (overrides.alg === 'none') {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
    const now = Math.floor(t.clock.now().getTime() / 1000)
    return `${enc({ alg: 'none', typ: 'at+jwt' })}.${enc({ iss: t.ctx.issuer, sub: client.clientId, subId: client.subId, scope: 'psapi', iat: now, exp: now + 3600, jti: 'x' })}.`
  }
  const { kid, alg, key } = t.ctx.keys.signingKey()
  const now = Math.floor(t.clock.now().getTime() / 1000)
  return new SignJWT({ subId: client.subId, scope: overrides.scope ?? 'psapi' })
    .setProtectedHeader({ alg, kid, typ: 'at+jwt' })
    .setIssuer(overrides.iss ?? t.ctx.issuer)
    .setSubject(client.clientId)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .setJti(`j${Math.random()}`)
    .sign(key)
}

/**
 * The shared auth matrix (STYLE.md): every protected route refuses a missing, malformed, tampered,
 * unsigned, foreign-issuer, expired or disabled-client token with 401 `{message}` + a Bearer
 * challenge, and a token without the psapi scope with 403.
 */
export function itRefusesBadTokens(getApp: () => TestApp, routes: ProtectedRoute[]): void {
  const call = (t: TestApp, r: ProtectedRoute, authorization?: string) =>
    t.inject({
      method: r.method,
      url: r.url,
      payload: r.payload as InjectOptions['payload'],
      headers: authorization ? { authorization } : {},
    })

  const expect401 = (res: Awaited<ReturnType<typeof call>>, label: string) => {
    expect(res.statusCode, label).toBe(401)
    expect(res.headers['www-authenticate'], label).toMatch(/^Bearer realm="mailroom"/)
    expect(Object.keys(res.json()), label).toEqual(['message'])
  }

  it.each(routes)('refuses requests without a valid token: $method $url', async (route) => {
    const t = getApp()
    const client = await t.newClient()
    expect401(await call(t, route), 'no token')
    expect401(await call(t, route, 'Bearer'), 'empty bearer')
    expect401(await call(t, route, 'Bearer not-a-jwt'), 'malformed')
    expect401(await call(t, route, `Token ${client.token}`), 'other scheme')
    expect401(await call(t, route, `Bearer ${tamper(client.token)}`), 'bad signature')
    expect401(await call(t, route, `Bearer ${await signWith(t, client, { alg: 'none' })}`), 'alg none')
    expect401(
      await call(t, route, `Bearer ${await signWith(t, client, { iss: 'https://evil.example/auth/us' })}`),
      'other issuer',
    )

    const noScope = await call(t, route, `Bearer ${await signWith(t, client, { scope: 'other' })}`)
    expect(noScope.statusCode, 'wrong scope').toBe(403)
    expect(noScope.headers['www-authenticate']).toContain('insufficient_scope')

    const expiring = await t.newClient()
    t.clock.advance(4 * 3600 * 1000 + 1000)
    try {
      expect401(await call(t, route, expiring.auth.authorization), 'expired')
    } finally {
      t.clock.advance(-(4 * 3600 * 1000 + 1000))
    }

    const disabled = await t.newClient()
    await t.ctx.clients.setStatus(disabled.clientId, 'disabled')
    expect401(await call(t, route, disabled.auth.authorization), 'disabled client')
  })
}
