import { describe, expect, it } from 'vitest'
import { signIn, type SignedIn } from '../support/console-session.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// Issue 25.6: a password the server generated (a new user created without one, an admin's reset) is
// known to whoever read it off the admin's screen. Its session may read itself, change the password
// and sign out; everything else, the public API included, is 403 until the password is changed.

const t = useTestApp()
const admin = useClient(t)

async function createUser(email: string, password?: string) {
  const res = await t.inject({
    method: 'POST',
    url: '/api/v1/users',
    headers: admin.auth,
    payload: { email, role: 'clerk', ...(password ? { password } : {}) },
  })
  expect(res.statusCode, res.body).toBe(201)
  const body: { user: { userId: string; mustChangePassword?: boolean }; password?: string } = res.json()
  return body
}

const sessionOf = async (s: SignedIn) =>
  (await t.inject({ method: 'GET', url: '/console/api/session', cookies: s.cookies })).json()
const contacts = (s: SignedIn) => t.inject({ method: 'GET', url: '/api/v1/contacts', cookies: s.cookies })

describe('a generated password', () => {
  it('signs in, but the session may do nothing but change it (403 naming the way out), then everything', async () => {
    const { user, password } = await createUser('first@example.com')
    expect(user.mustChangePassword).toBe(true)
    const s = await signIn(t, 'first@example.com', password)
    expect((await sessionOf(s)).mustChangePassword).toBe(true)

    // The public API and the console's own routes refuse, with a message saying what to do.
    const refused = await contacts(s)
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toEqual({ message: expect.stringContaining('Choose your own password first') })
    const write = await t.inject({
      method: 'POST',
      url: '/api/v1/contacts',
      ...s.write,
      payload: { contactType: 'RECEIVER', name: 'Not yet' },
    })
    expect(write.statusCode).toBe(403)
    const sessions = await t.inject({ method: 'GET', url: '/console/api/sessions', cookies: s.cookies })
    expect(sessions.statusCode).toBe(403)
    expect(sessions.json().message).toContain('/console/api/session/password')

    // Changing it (the current one is the generated one) opens the session to the rest.
    const changed = await t.inject({
      method: 'POST',
      url: '/console/api/session/password',
      ...s.write,
      payload: { currentPassword: password, newPassword: 'my very own password' },
    })
    expect(changed.statusCode, changed.body).toBe(204)
    expect((await sessionOf(s)).mustChangePassword).toBe(false)
    expect((await contacts(s)).statusCode).toBe(200)
    const listed = await t.inject({ method: 'GET', url: '/api/v1/users', headers: admin.auth })
    expect(listed.json().users.find((u: { userId: string }) => u.userId === user.userId).mustChangePassword).toBe(
      undefined,
    )
  })

  it('signing out still works before the change, and a new sign-in is held the same way', async () => {
    const { password } = await createUser('leaves@example.com')
    const s = await signIn(t, 'leaves@example.com', password)
    const out = await t.inject({ method: 'DELETE', url: '/console/api/session', ...s.write })
    expect(out.statusCode).toBe(204)
    const again = await signIn(t, 'leaves@example.com', password)
    expect((await sessionOf(again)).mustChangePassword).toBe(true)
    expect((await contacts(again)).statusCode).toBe(403)
  })

  it('an admin reset without a password holds the user again; a password the admin gives does not', async () => {
    const { user } = await createUser('given@example.com', 'an admin chose this')
    expect(user.mustChangePassword).toBeUndefined()
    const s = await signIn(t, 'given@example.com', 'an admin chose this')
    expect((await sessionOf(s)).mustChangePassword).toBe(false)
    expect((await contacts(s)).statusCode).toBe(200)

    const reset = await t.inject({ method: 'POST', url: `/api/v1/users/${user.userId}/password`, headers: admin.auth })
    expect(reset.statusCode).toBe(200)
    const held = await signIn(t, 'given@example.com', reset.json().password)
    expect((await sessionOf(held)).mustChangePassword).toBe(true)
    expect((await contacts(held)).statusCode).toBe(403)

    const chosen = await t.inject({
      method: 'POST',
      url: `/api/v1/users/${user.userId}/password`,
      headers: admin.auth,
      payload: { password: 'the admin chose again' },
    })
    expect(chosen.statusCode).toBe(200)
    const free = await signIn(t, 'given@example.com', 'the admin chose again')
    expect((await sessionOf(free)).mustChangePassword).toBe(false)
    expect((await contacts(free)).statusCode).toBe(200)
  })
})
