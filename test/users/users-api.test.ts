import { describe, expect, it } from 'vitest'
import { signIn } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

const t = useTestApp()
const admin = useClient(t)
const other = useClient(t)

const fields = (body: { errors: Array<{ additionalParameters: string }> }) =>
  body.errors.map((e) => e.additionalParameters).sort()

describe('the users API', () => {
  it('creates a user with a one-time password shown once, which signs in', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: admin.auth,
      payload: { email: 'Desk@Example.com', role: 'clerk', name: ' Dana Desk ' },
    })
    expect(res.statusCode).toBe(201)
    const { user, password } = res.json()
    expect(user).toEqual({
      userId: expect.stringMatching(/^usr_/),
      email: 'Desk@Example.com',
      name: 'Dana Desk',
      role: 'clerk',
      subscription: admin.subId,
      status: 'active',
      // Generated: the user must choose their own password at first sign-in.
      mustChangePassword: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    expect(password).toMatch(/^[A-Za-z0-9_-]{20}$/)
    const s = await signIn(t, 'desk@example.com', password)
    expect(s.user.userId).toBe(user.userId)
    // Listed without any password or hash.
    const list = await t.inject({ method: 'GET', url: '/api/v1/users', headers: admin.auth })
    expect(list.statusCode).toBe(200)
    expect(list.json().users).toEqual([user])
    // Neither the password nor its hash (the flag mustChangePassword names no secret).
    expect(list.body).not.toContain(password)
    expect(list.body.replace('"mustChangePassword"', '')).not.toMatch(/password|argon/i)
  })

  it('takes a given password and returns none', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: admin.auth,
      payload: { email: 'given@example.com', role: 'admin', password: 'a long enough one' },
    })
    expect(res.statusCode).toBe(201)
    expect(res.json().password).toBeUndefined()
    await signIn(t, 'given@example.com', 'a long enough one')
  })

  it('refuses bad input with a 400 naming each field', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: admin.auth,
      payload: { email: 'not an email', role: 'boss', password: 'short', siteId: '' },
    })
    expect(res.statusCode).toBe(400)
    expect(fields(res.json())).toEqual(['email', 'password', 'role', 'siteId'])
    const missing = await t.inject({ method: 'POST', url: '/api/v1/users', headers: admin.auth, payload: {} })
    expect(missing.statusCode).toBe(400)
    expect(fields(missing.json())).toEqual(['email', 'role'])
    const extra = await t.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: admin.auth,
      payload: { email: 'x@example.com', role: 'clerk', passwordHash: 'x' },
    })
    expect(extra.statusCode).toBe(400)
    expect(fields(extra.json())).toEqual(['passwordHash'])
    const site = await t.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: admin.auth,
      payload: { email: 'site@example.com', role: 'clerk', siteId: 'no-such-site' },
    })
    expect(site.statusCode).toBe(400)
    expect(fields(site.json())).toEqual(['siteId'])
  })

  it('keeps emails unique across the installation, case-insensitively (409 naming email)', async () => {
    await t.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: admin.auth,
      payload: { email: 'once@example.com', role: 'clerk' },
    })
    for (const [client, address] of [
      [admin, 'ONCE@example.com'],
      [other, 'once@example.com'],
    ] as const) {
      const res = await t.inject({
        method: 'POST',
        url: '/api/v1/users',
        headers: client.auth,
        payload: { email: address, role: 'clerk' },
      })
      expect(res.statusCode).toBe(409)
      expect(res.json().errors[0]).toMatchObject({ errorCode: 'already_exists', additionalParameters: 'email' })
    }
  })

  it('changes role, name and site; 404 for an unknown user or another subscription’s', async () => {
    const { siteId } = await api(t, admin).mailroom()
    const created = await t.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: admin.auth,
      payload: { email: 'change@example.com', role: 'clerk', name: 'Before' },
    })
    const { userId } = created.json().user
    const res = await t.inject({
      method: 'PATCH',
      url: `/api/v1/users/${userId}`,
      headers: admin.auth,
      payload: { role: 'admin', name: 'After', siteId },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ userId, role: 'admin', name: 'After', siteId })
    const cleared = await t.inject({
      method: 'PATCH',
      url: `/api/v1/users/${userId}`,
      headers: admin.auth,
      payload: { siteId: null, name: null },
    })
    expect(cleared.json().siteId).toBeUndefined()
    expect(cleared.json().name).toBeUndefined()
    const bad = await t.inject({
      method: 'PATCH',
      url: `/api/v1/users/${userId}`,
      headers: admin.auth,
      payload: { role: 'owner', disabled: 'yes' },
    })
    expect(bad.statusCode).toBe(400)
    expect(fields(bad.json())).toEqual(['disabled', 'role'])
    for (const [client, id] of [
      [admin, 'usr_nobody'],
      [other, userId],
    ] as const) {
      const missing = await t.inject({
        method: 'PATCH',
        url: `/api/v1/users/${id}`,
        headers: client.auth,
        payload: { disabled: true },
      })
      expect(missing.statusCode).toBe(404)
    }
    // The other subscription's attempt changed nothing.
    const list = await t.inject({ method: 'GET', url: '/api/v1/users', headers: admin.auth })
    expect(list.json().users.find((u: { userId: string }) => u.userId === userId).status).toBe('active')
    const theirs = await t.inject({ method: 'GET', url: '/api/v1/users', headers: other.auth })
    expect(theirs.json().users).toEqual([])
  })
})

describe('setting a new password', () => {
  it('generates a one-time password (no body) or takes one, and signs the user out everywhere', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: admin.auth,
      payload: { email: 'forgot@example.com', role: 'clerk', password: 'the old password' },
    })
    const { userId } = created.json().user
    const before = await signIn(t, 'forgot@example.com', 'the old password')
    const reset = await t.inject({ method: 'POST', url: `/api/v1/users/${userId}/password`, headers: admin.auth })
    expect(reset.statusCode, reset.body).toBe(200)
    const { password } = reset.json()
    expect(password).toMatch(/^[A-Za-z0-9_-]{20}$/)
    expect((await t.inject({ method: 'GET', url: '/console/api/session', cookies: before.cookies })).statusCode).toBe(
      401,
    )
    const old = await t.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: { email: 'forgot@example.com', password: 'the old password' },
    })
    expect(old.statusCode).toBe(401)
    await signIn(t, 'forgot@example.com', password)

    const chosen = await t.inject({
      method: 'POST',
      url: `/api/v1/users/${userId}/password`,
      headers: admin.auth,
      payload: { password: 'chosen again, long' },
    })
    expect(chosen.statusCode).toBe(200)
    expect(chosen.json()).toEqual({})
    await signIn(t, 'forgot@example.com', 'chosen again, long')

    const short = await t.inject({
      method: 'POST',
      url: `/api/v1/users/${userId}/password`,
      headers: admin.auth,
      payload: { password: 'short' },
    })
    expect(short.statusCode).toBe(400)
    expect(fields(short.json())).toEqual(['password'])
    const theirs = await t.inject({ method: 'POST', url: `/api/v1/users/${userId}/password`, headers: other.auth })
    expect(theirs.statusCode).toBe(404)
  })
})
