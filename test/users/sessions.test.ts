import { describe, expect, it } from 'vitest'
import { createUser, signIn } from '../support/console-session.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

const t = useTestApp({ TOKEN_FAILURE_LIMIT: '3', CONSOLE_SESSION_IDLE_MINUTES: '30', CONSOLE_SESSION_MAX_HOURS: '12' })
const admin = useClient(t)

let n = 0
const email = (what: string) => `${what}-${++n}@example.com`

describe('signing in and out', () => {
  it('signs in with email and password: the user, a CSRF token and an HttpOnly SameSite cookie', async () => {
    const e = email('Clerk')
    const { userId } = await createUser(t, admin, { email: e, role: 'clerk', name: 'Casey Clerk' })
    // Email is matched case-insensitively.
    const res = await t.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: { email: e.toUpperCase(), password: 'correct horse battery' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      user: { userId, email: e, name: 'Casey Clerk', role: 'clerk', subscription: admin.subId },
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      // A password the user was given (not generated): nothing to change; 30 idle minutes less the
      // 5-minute renewal step, 12 hours at most.
      mustChangePassword: false,
      idleSeconds: 1500,
      expiresInSeconds: 12 * 3600,
    })
    const setCookie = String(res.headers['set-cookie'])
    expect(setCookie).toMatch(/^mailroom_session=[A-Za-z0-9_-]{43}; /)
    expect(setCookie).toContain('HttpOnly')
    expect(setCookie).toContain('SameSite=Strict')
    expect(setCookie).toContain('Path=/')
    // Plain HTTP (the test app's public URL is http://localhost): not Secure, or the browser would drop it.
    expect(setCookie).not.toContain('Secure')
    // Only a hash of the cookie value is stored.
    const value = res.cookies[0]!.value
    const stored = await t.ctx.db
      .selectFrom('user_sessions')
      .select('session_hash')
      .where('user_id', '=', userId)
      .execute()
    expect(stored).toHaveLength(1)
    expect(stored[0]!.session_hash).not.toContain(value)
    expect(stored[0]!.session_hash).toMatch(/^[0-9a-f]{64}$/)
  })

  it('GET /console/api/session says who is signed in; 401 without a cookie or with a made-up one', async () => {
    const e = email('who')
    await createUser(t, admin, { email: e, role: 'admin' })
    const s = await signIn(t, e)
    const res = await t.inject({ method: 'GET', url: '/console/api/session', cookies: s.cookies })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      user: s.user,
      csrfToken: s.csrfToken,
      mustChangePassword: false,
      idleSeconds: 1500,
      expiresInSeconds: 12 * 3600,
    })
    expect(s.user.role).toBe('admin')
    const none = await t.inject({ method: 'GET', url: '/console/api/session' })
    expect(none.statusCode).toBe(401)
    expect(none.json()).toEqual({ message: expect.stringContaining('sign in') })
    const forged = await t.inject({
      method: 'GET',
      url: '/console/api/session',
      cookies: { mailroom_session: 'x'.repeat(43) },
    })
    expect(forged.statusCode).toBe(401)
  })

  it('a new sign-in over an open session replaces it; answers are not cached', async () => {
    const e = email('again')
    await createUser(t, admin, { email: e, role: 'clerk' })
    const first = await signIn(t, e)
    const res = await t.inject({
      method: 'POST',
      url: '/console/api/session',
      cookies: first.cookies,
      payload: { email: e, password: 'correct horse battery' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    const second = res.cookies.find((c) => c.name === 'mailroom_session')!.value
    expect(second).not.toBe(first.session)
    expect((await t.inject({ method: 'GET', url: '/console/api/session', cookies: first.cookies })).statusCode).toBe(
      401,
    )
    const now = await t.inject({ method: 'GET', url: '/console/api/session', cookies: { mailroom_session: second } })
    expect(now.statusCode).toBe(200)
    expect(now.headers['cache-control']).toBe('no-store')
  })

  it('wrong password and unknown email get the same 401', async () => {
    const e = email('wrong')
    await createUser(t, admin, { email: e, role: 'clerk' })
    const wrong = await t.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: { email: e, password: 'not the password' },
      remoteAddress: '10.1.0.1',
    })
    const unknown = await t.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: { email: 'nobody@example.com', password: 'not the password' },
      remoteAddress: '10.1.0.2',
    })
    expect(wrong.statusCode).toBe(401)
    expect(unknown.statusCode).toBe(401)
    expect(wrong.json()).toEqual(unknown.json())
    expect(wrong.json().message).toBe('Wrong email or password.')
    expect(wrong.headers['set-cookie']).toBeUndefined()
  })

  it('refuses a body without email or password (400 naming the field)', async () => {
    const res = await t.inject({ method: 'POST', url: '/console/api/session', payload: { email: 'a@example.com' } })
    expect(res.statusCode).toBe(400)
    expect(res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)).toContain('password')
  })

  it('signs out: 204, the cookie cleared, the session gone on the server (the old cookie is refused)', async () => {
    const e = email('out')
    await createUser(t, admin, { email: e, role: 'clerk' })
    const s = await signIn(t, e)
    const noCsrf = await t.inject({ method: 'DELETE', url: '/console/api/session', cookies: s.cookies })
    expect(noCsrf.statusCode).toBe(403)
    expect(noCsrf.json().message).toContain('X-CSRF-Token')
    const res = await t.inject({ method: 'DELETE', url: '/console/api/session', ...s.write })
    expect(res.statusCode).toBe(204)
    const cleared = String(res.headers['set-cookie'])
    expect(cleared).toMatch(/^mailroom_session=;/)
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/)
    const after = await t.inject({ method: 'GET', url: '/console/api/session', cookies: s.cookies })
    expect(after.statusCode).toBe(401)
    const api = await t.inject({ method: 'GET', url: '/api/v1/session', cookies: s.cookies })
    expect(api.statusCode).toBe(401)
  })

  it('a disabled user cannot sign in, and their open sessions end at once', async () => {
    const e = email('disabled')
    const { userId } = await createUser(t, admin, { email: e, role: 'clerk' })
    const s = await signIn(t, e)
    const patch = await t.inject({
      method: 'PATCH',
      url: `/api/v1/users/${userId}`,
      headers: admin.auth,
      payload: { disabled: true },
    })
    expect(patch.statusCode).toBe(200)
    expect(patch.json().status).toBe('disabled')
    expect((await t.inject({ method: 'GET', url: '/console/api/session', cookies: s.cookies })).statusCode).toBe(401)
    const again = await t.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: { email: e, password: 'correct horse battery' },
    })
    expect(again.statusCode).toBe(401)
    expect(again.json().message).toBe('Wrong email or password.')
    // Re-enabled: signs in again.
    await t.inject({
      method: 'PATCH',
      url: `/api/v1/users/${userId}`,
      headers: admin.auth,
      payload: { disabled: false },
    })
    await signIn(t, e)
  })

  it('limits failed sign-ins per email and address: 429 with Retry-After, even for the right password', async () => {
    const e = email('limited')
    await createUser(t, admin, { email: e, role: 'clerk' })
    const address = '10.2.0.1'
    for (let i = 0; i < 3; i++) {
      const res = await t.inject({
        method: 'POST',
        url: '/console/api/session',
        payload: { email: e, password: `guess ${i}` },
        remoteAddress: address,
      })
      expect(res.statusCode).toBe(401)
    }
    const limited = await t.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: { email: e, password: 'correct horse battery' },
      remoteAddress: address,
    })
    expect(limited.statusCode).toBe(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    expect(limited.json().errors[0].errorCode).toBe('validation_error')
    // The real user at another address is not locked out by the guesser.
    await signIn(t, e, 'correct horse battery', '10.2.0.2')
    // After the window the guesser's address may try again.
    t.clock.advance(301_000)
    await signIn(t, e, 'correct horse battery', address)
  })
})

describe('expiry', () => {
  it('ends a session after 30 idle minutes; a request within them slides the window', async () => {
    const e = email('idle')
    await createUser(t, admin, { email: e, role: 'clerk' })
    const s = await signIn(t, e)
    const get = () => t.inject({ method: 'GET', url: '/api/v1/session', cookies: s.cookies })
    t.clock.advance(20 * 60_000)
    expect((await get()).statusCode).toBe(200)
    t.clock.advance(20 * 60_000)
    // 40 minutes after sign-in, 20 after the last request.
    expect((await get()).statusCode).toBe(200)
    t.clock.advance(30 * 60_000 + 1000)
    const expired = await get()
    expect(expired.statusCode).toBe(401)
    expect(expired.json().message).toContain('expired')
    expect((await t.inject({ method: 'GET', url: '/console/api/session', cookies: s.cookies })).statusCode).toBe(401)
  })

  it('ends a session 12 hours after sign-in whatever the activity', async () => {
    const e = email('absolute')
    await createUser(t, admin, { email: e, role: 'clerk' })
    const s = await signIn(t, e)
    const get = () => t.inject({ method: 'GET', url: '/console/api/session', cookies: s.cookies })
    for (let h = 0; h < 12 * 3 - 1; h++) {
      t.clock.advance(20 * 60_000)
      expect((await get()).statusCode, `after ${(h + 1) * 20} minutes`).toBe(200)
    }
    t.clock.advance(20 * 60_000)
    expect((await get()).statusCode).toBe(401)
  })
})
