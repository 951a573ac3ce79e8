import { expect } from 'vitest'
import type { TestApp, TestClient } from './build-test-app.js'

export interface SignedIn {
  user: { userId: string; email: string; role: 'admin' | 'clerk'; subscription: string; name?: string; siteId?: string }
  csrfToken: string
  /** The session cookie's value. */
  session: string
  /** For inject: the cookie alone (reads). */
  cookies: Record<string, string>
  /** For inject: the cookie and the CSRF header (writes). */
  write: { cookies: Record<string, string>; headers: Record<string, string> }
}

/** A console user made through the users API by `admin` (an API client of the subscription). */
export async function createUser(
  t: TestApp,
  admin: TestClient,
  input: { email: string; role: 'admin' | 'clerk'; password?: string; name?: string; siteId?: string },
): Promise<{ userId: string; password: string }> {
  const password = input.password ?? 'correct horse battery'
  const res = await t.inject({
    method: 'POST',
    url: '/api/v1/users',
    headers: admin.auth,
    payload: { ...input, password },
  })
  expect(res.statusCode, res.body).toBe(201)
  return { userId: res.json().user.userId, password }
}

/** Signs in through POST /console/api/session and returns what a browser would keep. */
export async function signIn(
  t: TestApp,
  email: string,
  password = 'correct horse battery',
  remoteAddress?: string,
): Promise<SignedIn> {
  const res = await t.inject({
    method: 'POST',
    url: '/console/api/session',
    payload: { email, password },
    ...(remoteAddress ? { remoteAddress } : {}),
  })
  expect(res.statusCode, res.body).toBe(200)
  const cookie = res.cookies.find((c) => c.name === 'mailroom_session')
  expect(cookie).toBeDefined()
  const session = cookie!.value
  const { user, csrfToken } = res.json()
  const cookies = { mailroom_session: session }
  return { user, csrfToken, session, cookies, write: { cookies, headers: { 'x-csrf-token': csrfToken } } }
}
