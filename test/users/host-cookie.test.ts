import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import type { TestApp } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// The session cookie's name: `__Host-mailroom_session` over HTTPS (Secure, Path=/, no Domain, so no
// sibling host or plain-HTTP page can plant it), `mailroom_session` over plain HTTP, where browsers
// refuse a `__Host-` cookie.
const HOST = '__Host-mailroom_session'
const PLAIN = 'mailroom_session'
const PASSWORD = 'correct horse battery'

const setCookie = (res: LightMyRequestResponse) => String(res.headers['set-cookie'])
const signInOver = (t: TestApp, email: string, headers: Record<string, string> = {}) =>
  t.inject({ method: 'POST', url: '/console/api/session', headers, payload: { email, password: PASSWORD } })

describe('under an https public URL', () => {
  const t = useTestApp({ MAILROOM_PUBLIC_URL: 'https://mail.example.com' })
  const admin = useClient(t)

  it('names the cookie __Host-mailroom_session (Secure, Path=/, no Domain), which then authenticates', async () => {
    await createUser(t, admin, { email: 'host@example.com', role: 'clerk' })
    const res = await signInOver(t, 'host@example.com')
    expect(res.statusCode).toBe(200)
    const header = setCookie(res)
    expect(header).toMatch(/^__Host-mailroom_session=[A-Za-z0-9_-]{43}; /)
    expect(header).toContain('; Secure')
    expect(header).toContain('; Path=/')
    expect(header).toContain('HttpOnly')
    expect(header).not.toMatch(/domain=/i)
    const value = res.cookies.find((c) => c.name === HOST)!.value
    const csrf = res.json().csrfToken as string
    const who = await t.inject({ method: 'GET', url: '/console/api/session', cookies: { [HOST]: value } })
    expect(who.statusCode).toBe(200)
    const api = await t.inject({ method: 'GET', url: '/api/v1/session', cookies: { [HOST]: value } })
    expect(api.statusCode).toBe(200)
    // The service is reached over HTTPS whatever this request's protocol says (no trusted proxy told
    // it): a plain-named cookie, which it never sets here, is not believed, even with a live session.
    for (const url of ['/console/api/session', '/api/v1/session'])
      expect((await t.inject({ method: 'GET', url, cookies: { [PLAIN]: value } })).statusCode, url).toBe(401)
    // Sign-out clears that name.
    const out = await t.inject({
      method: 'DELETE',
      url: '/console/api/session',
      cookies: { [HOST]: value },
      headers: { 'x-csrf-token': csrf },
    })
    expect(out.statusCode).toBe(204)
    expect(setCookie(out)).toMatch(/^__Host-mailroom_session=;/)
    expect(setCookie(out)).toContain('; Secure')
  })
})

describe('behind a trusted proxy', () => {
  const t = useTestApp({ TRUST_PROXY: 'true' })
  const admin = useClient(t)
  const https = { 'x-forwarded-proto': 'https' }

  it('uses __Host- for a request that came over HTTPS and the plain name over HTTP', async () => {
    await createUser(t, admin, { email: 'proxy@example.com', role: 'clerk' })
    const secure = await signInOver(t, 'proxy@example.com', https)
    expect(setCookie(secure)).toMatch(/^__Host-mailroom_session=.*; Secure/)
    const plain = await signInOver(t, 'proxy@example.com', { 'x-forwarded-proto': 'http' })
    expect(setCookie(plain)).toMatch(/^mailroom_session=/)
    expect(setCookie(plain)).not.toContain('Secure')
    // Each authenticates where the browser would send it.
    const hostValue = secure.cookies.find((c) => c.name === HOST)!.value
    const plainValue = plain.cookies.find((c) => c.name === PLAIN)!.value
    const get = (headers: Record<string, string>, cookies: Record<string, string>) =>
      t.inject({ method: 'GET', url: '/console/api/session', headers, cookies })
    expect((await get(https, { [HOST]: hostValue })).statusCode).toBe(200)
    expect((await get({}, { [PLAIN]: plainValue })).statusCode).toBe(200)
    // Over HTTPS a plain-named cookie is not believed (it may have been planted by another host or
    // an HTTP page), valid session or not; on the public API neither.
    expect((await get(https, { [PLAIN]: plainValue })).statusCode).toBe(401)
    const api = await t.inject({
      method: 'GET',
      url: '/api/v1/session',
      headers: https,
      cookies: { [PLAIN]: plainValue },
    })
    expect(api.statusCode).toBe(401)
    // When a browser sends both, the __Host- one is the session.
    const both = await get(https, { [PLAIN]: plainValue, [HOST]: hostValue })
    expect(both.json().csrfToken).toBe(secure.json().csrfToken)
  })
})
