import { describe, expect, it } from 'vitest'
import { createUser, signIn, type SignedIn } from '../support/console-session.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// What a signed-in user does to their own account (issue 18): change the password, list and end sessions.
const t = useTestApp({ TOKEN_FAILURE_LIMIT: '3' })
const admin = useClient(t)

let n = 0
const email = (what: string) => `${what}-${++n}@own.example.com`
const fields = (body: { errors: Array<{ additionalParameters: string }> }) =>
  body.errors.map((e) => e.additionalParameters).sort()

/** Signs in with a User-Agent, as a browser would. */
async function signInAs(address: string, userAgent: string, password = 'correct horse battery'): Promise<SignedIn> {
  const res = await t.inject({
    method: 'POST',
    url: '/console/api/session',
    headers: { 'user-agent': userAgent },
    payload: { email: address, password },
  })
  expect(res.statusCode, res.body).toBe(200)
  const session = res.cookies.find((c) => c.name === 'mailroom_session')!.value
  const { user, csrfToken } = res.json()
  const cookies = { mailroom_session: session }
  return { user, csrfToken, session, cookies, write: { cookies, headers: { 'x-csrf-token': csrfToken } } }
}

const alive = async (s: SignedIn) =>
  (await t.inject({ method: 'GET', url: '/console/api/session', cookies: s.cookies })).statusCode === 200

const changePassword = (s: SignedIn, payload: object, csrf = true) =>
  t.inject({
    method: 'POST',
    url: '/console/api/session/password',
    ...(csrf ? s.write : { cookies: s.cookies }),
    payload,
  })

describe('POST /console/api/session/password', () => {
  it('changes the password: 204, this session stays, every other one of the user ends', async () => {
    const e = email('change')
    await createUser(t, admin, { email: e, role: 'clerk' })
    const here = await signIn(t, e)
    const there = await signIn(t, e)
    const someoneElse = await (async () => {
      const o = email('bystander')
      await createUser(t, admin, { email: o, role: 'clerk' })
      return signIn(t, o)
    })()
    const res = await changePassword(here, { currentPassword: 'correct horse battery', newPassword: 'a brand new one' })
    expect(res.statusCode, res.body).toBe(204)
    expect(await alive(here)).toBe(true)
    expect(await alive(there)).toBe(false)
    expect(await alive(someoneElse)).toBe(true)
    // The new password signs in, the old one no longer does.
    await signIn(t, e, 'a brand new one')
    const old = await t.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: { email: e, password: 'correct horse battery' },
      remoteAddress: '10.3.0.1',
    })
    expect(old.statusCode).toBe(401)
  })

  it('refuses a wrong current password (400 naming currentPassword) and a weak or unchanged new one (naming newPassword)', async () => {
    const e = email('rules')
    await createUser(t, admin, { email: e, role: 'admin' })
    const s = await signIn(t, e)
    const wrong = await changePassword(s, { currentPassword: 'not it at all', newPassword: 'a brand new one' })
    expect(wrong.statusCode).toBe(400)
    expect(fields(wrong.json())).toEqual(['currentPassword'])
    for (const newPassword of ['short', 'x'.repeat(201)]) {
      const weak = await changePassword(s, { currentPassword: 'correct horse battery', newPassword })
      expect(weak.statusCode).toBe(400)
      expect(fields(weak.json())).toEqual(['newPassword'])
    }
    const same = await changePassword(s, {
      currentPassword: 'correct horse battery',
      newPassword: 'correct horse battery',
    })
    expect(same.statusCode).toBe(400)
    expect(fields(same.json())).toEqual(['newPassword'])
    const missing = await changePassword(s, {})
    expect(fields(missing.json())).toEqual(['currentPassword', 'newPassword'])
    // Nothing changed: the password is still the old one.
    await signIn(t, e)
  })

  it('needs the session and its CSRF token; wrong current passwords are rate limited like sign-ins', async () => {
    const e = email('guard')
    await createUser(t, admin, { email: e, role: 'clerk' })
    const s = await signIn(t, e)
    const body = { currentPassword: 'correct horse battery', newPassword: 'a brand new one' }
    expect((await changePassword(s, body, false)).statusCode).toBe(403)
    const none = await t.inject({ method: 'POST', url: '/console/api/session/password', payload: body })
    expect(none.statusCode).toBe(401)
    // A bearer token is no console session.
    const bearer = await t.inject({
      method: 'POST',
      url: '/console/api/session/password',
      headers: admin.auth,
      payload: body,
    })
    expect(bearer.statusCode).toBe(401)
    for (let i = 0; i < 3; i++)
      expect((await changePassword(s, { ...body, currentPassword: `guess number ${i}` })).statusCode).toBe(400)
    const limited = await changePassword(s, body)
    expect(limited.statusCode).toBe(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    t.clock.advance(301_000)
    const s2 = await signIn(t, e)
    expect((await changePassword(s2, body)).statusCode).toBe(204)
  })
})

describe('the user’s sessions', () => {
  it('lists the signed-in user’s live sessions with a public id, newest first, the current one marked', async () => {
    const e = email('list')
    await createUser(t, admin, { email: e, role: 'clerk' })
    const desk = await signInAs(e, 'Desk browser/1.0')
    t.clock.advance(1000)
    const tablet = await signInAs(e, 'Tablet browser/2.0')
    const res = await t.inject({ method: 'GET', url: '/console/api/sessions', cookies: desk.cookies })
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    const { sessions } = res.json<{ sessions: Array<Record<string, unknown>> }>()
    expect(sessions).toEqual([
      {
        sessionId: expect.stringMatching(/^ses_/),
        createdAt: expect.any(String),
        lastSeenAt: expect.any(String),
        userAgent: 'Tablet browser/2.0',
        current: false,
      },
      {
        sessionId: expect.stringMatching(/^ses_/),
        createdAt: expect.any(String),
        lastSeenAt: expect.any(String),
        userAgent: 'Desk browser/1.0',
        current: true,
      },
    ])
    // The public id is neither the cookie value nor its hash.
    const stored = await t.ctx.db.selectFrom('user_sessions').select(['session_hash', 'session_id']).execute()
    for (const s of sessions) {
      expect(String(s.sessionId)).not.toContain(desk.session)
      expect(String(s.sessionId)).not.toContain(tablet.session)
      expect(stored.some((r) => r.session_hash.includes(String(s.sessionId).slice(4)))).toBe(false)
    }
    // From the tablet, the tablet is the current one.
    const fromTablet = await t.inject({ method: 'GET', url: '/console/api/sessions', cookies: tablet.cookies })
    expect(fromTablet.json().sessions.map((s: { current: boolean }) => s.current)).toEqual([true, false])
    expect((await t.inject({ method: 'GET', url: '/console/api/sessions' })).statusCode).toBe(401)
  })

  it('ends another of the user’s sessions (204), refuses another user’s or an unknown one (404)', async () => {
    const e = email('end')
    await createUser(t, admin, { email: e, role: 'clerk' })
    const desk = await signInAs(e, 'Desk')
    const lost = await signInAs(e, 'Lost tablet')
    const o = email('other')
    await createUser(t, admin, { email: o, role: 'admin' })
    const other = await signInAs(o, 'Other')
    const idOf = async (s: SignedIn) =>
      (await t.inject({ method: 'GET', url: '/console/api/sessions', cookies: s.cookies }))
        .json()
        .sessions.find((x: { current: boolean }) => x.current).sessionId as string
    const lostId = await idOf(lost)
    const otherId = await idOf(other)
    const end = (s: SignedIn, id: string, csrf = true) =>
      t.inject({ method: 'DELETE', url: `/console/api/sessions/${id}`, ...(csrf ? s.write : { cookies: s.cookies }) })

    expect((await end(desk, lostId, false)).statusCode).toBe(403)
    for (const id of [otherId, 'ses_nope']) {
      const res = await end(desk, id)
      expect(res.statusCode).toBe(404)
      expect(res.json().errors[0]).toMatchObject({ errorCode: 'not_found', additionalParameters: 'sessionId' })
    }
    expect(await alive(other)).toBe(true)
    const ended = await end(desk, lostId)
    expect(ended.statusCode).toBe(204)
    expect(ended.headers['set-cookie']).toBeUndefined()
    expect(await alive(lost)).toBe(false)
    expect(await alive(desk)).toBe(true)
    const left = await t.inject({ method: 'GET', url: '/console/api/sessions', cookies: desk.cookies })
    expect(left.json().sessions).toHaveLength(1)
    // Ending the current session signs out and clears the cookie.
    const self = await end(desk, await idOf(desk))
    expect(self.statusCode).toBe(204)
    expect(String(self.headers['set-cookie'])).toMatch(/^mailroom_session=;/)
    expect(await alive(desk)).toBe(false)
  })

  it('lists no session that has expired', async () => {
    const e = email('expired')
    await createUser(t, admin, { email: e, role: 'clerk' })
    const idle = await signIn(t, e)
    t.clock.advance(20 * 60_000)
    const active = await signIn(t, e)
    t.clock.advance(15 * 60_000)
    const res = await t.inject({ method: 'GET', url: '/console/api/sessions', cookies: active.cookies })
    expect(res.json().sessions).toHaveLength(1)
    expect(await alive(idle)).toBe(false)
  })
})

describe('a disabled user', () => {
  it('is signed out everywhere at once: console, public API, and no session left on the server', async () => {
    const e = email('disabled')
    const { userId } = await createUser(t, admin, { email: e, role: 'clerk' })
    const a = await signIn(t, e)
    const b = await signIn(t, e)
    const patch = await t.inject({
      method: 'PATCH',
      url: `/api/v1/users/${userId}`,
      headers: admin.auth,
      payload: { disabled: true },
    })
    expect(patch.statusCode).toBe(200)
    for (const s of [a, b]) {
      expect(await alive(s)).toBe(false)
      expect((await t.inject({ method: 'GET', url: '/api/v1/session', cookies: s.cookies })).statusCode).toBe(401)
      expect((await t.inject({ method: 'GET', url: '/console/api/sessions', cookies: s.cookies })).statusCode).toBe(401)
    }
    const rows = await t.ctx.db.selectFrom('user_sessions').select('session_id').where('user_id', '=', userId).execute()
    expect(rows).toEqual([])
  })
})
