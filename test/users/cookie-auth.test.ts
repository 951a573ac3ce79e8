import { describe, expect, it } from 'vitest'
import { createUser, signIn, type SignedIn } from '../support/console-session.js'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

const t = useTestApp()
const admin = useClient(t)

// One builder for the admin client: its names count up across the file (locations are unique by name).
let adminApi: ReturnType<typeof api> | undefined
const adminCalls = () => (adminApi ??= api(t, admin))

let n = 0
const email = (what: string) => `${what}-${++n}@cookie.example.com`

async function clerk(): Promise<SignedIn> {
  const e = email('clerk')
  await createUser(t, admin, { email: e, role: 'clerk', name: 'Casey' })
  return signIn(t, e)
}

describe('the session cookie on the public API', () => {
  it('authenticates reads as the user’s subscription', async () => {
    const a = adminCalls()
    const { receiverId } = await a.mailroom()
    const number = trackingNumber()
    await a.ok('POST', '/api/v1/packages', { package: { trackingNumber: number, receiver: { contactId: receiverId } } })
    const s = await clerk()
    const session = await t.inject({ method: 'GET', url: '/api/v1/session', cookies: s.cookies })
    expect(session.statusCode).toBe(200)
    expect(session.json()).toMatchObject({ clientId: s.user.userId, subId: admin.subId, scope: 'psapi' })
    const found = await t.inject({ method: 'GET', url: `/api/v1/packages/tracking/${number}`, cookies: s.cookies })
    expect(found.statusCode).toBe(200)
    expect(found.json().trackingNumber).toBe(number)
    // The webhook interface too.
    const events = await t.inject({ method: 'GET', url: '/webhooks/tracking/api/v1/events', cookies: s.cookies })
    expect(events.statusCode).toBe(200)
  })

  it('needs the session’s X-CSRF-Token on writes: none → 403, wrong → 403, right → done', async () => {
    const s = await clerk()
    const body = { package: { trackingNumber: trackingNumber() } }
    const none = await t.inject({ method: 'POST', url: '/api/v1/packages', cookies: s.cookies, payload: body })
    expect(none.statusCode).toBe(403)
    expect(none.json()).toEqual({ message: expect.stringContaining('X-CSRF-Token') })
    const wrong = await t.inject({
      method: 'POST',
      url: '/api/v1/packages',
      cookies: s.cookies,
      // One character changed (a token ending in A would be left as it was one run in 64).
      headers: { 'x-csrf-token': `${s.csrfToken.slice(0, -1)}${s.csrfToken.endsWith('A') ? 'B' : 'A'}` },
      payload: body,
    })
    expect(wrong.statusCode).toBe(403)
    // Another session's token is not this session's.
    const other = await clerk()
    const crossed = await t.inject({
      method: 'POST',
      url: '/api/v1/packages',
      cookies: s.cookies,
      headers: { 'x-csrf-token': other.csrfToken },
      payload: body,
    })
    expect(crossed.statusCode).toBe(403)
    const right = await t.inject({ method: 'POST', url: '/api/v1/packages', ...s.write, payload: body })
    expect(right.statusCode, right.body).toBe(201)
  })

  it('leaves bearer clients alone: no CSRF header needed, and the bearer token wins over a cookie', async () => {
    const s = await clerk()
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/packages',
      headers: admin.auth,
      cookies: s.cookies,
      payload: { package: { trackingNumber: trackingNumber() } },
    })
    expect(res.statusCode).toBe(201)
    const who = await t.inject({ method: 'GET', url: '/api/v1/session', headers: admin.auth, cookies: s.cookies })
    expect(who.json().clientId).toBe(admin.clientId)
  })

  it('records the signed-in user as the clerk, whatever the body or X-User-Name say', async () => {
    const s = await clerk()
    const { receiverId, siteId } = await adminCalls().mailroom()
    const added = await t.inject({
      method: 'POST',
      url: '/api/v1/packages',
      cookies: s.cookies,
      headers: { ...s.write.headers, 'x-user-name': 'Mallory' },
      payload: {
        package: {
          trackingNumber: trackingNumber(),
          receiver: { contactId: receiverId },
          receiveClerk: 'Mallory',
          userName: 'Mallory',
        },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: siteId } },
      },
    })
    expect(added.statusCode, added.body).toBe(201)
    const { packageId } = added.json()
    const handed = await t.inject({
      method: 'PUT',
      url: `/api/v1/packages/${packageId}`,
      cookies: s.cookies,
      headers: { ...s.write.headers, 'x-user-name': 'Mallory' },
      payload: {
        package: { deliveryClerk: 'Mallory' },
        lastActivity: { status: 'PICKED_UP', location: { inboundSiteId: siteId } },
      },
    })
    expect(handed.statusCode, handed.body).toBe(200)
    const record = (
      await t.inject({ method: 'GET', url: `/api/v1/packages/${packageId}?type=DETAILED`, headers: admin.auth })
    ).json()
    expect(record).toMatchObject({ userName: s.user.email, receiveClerk: s.user.email, deliveryClerk: s.user.email })
    const activities = (
      await t.inject({ method: 'GET', url: `/api/v1/packages/${packageId}?type=ACTIVITIES`, headers: admin.auth })
    ).json().activities
    expect(activities.map((x: { userName: string }) => x.userName)).toEqual([s.user.email, s.user.email])
    expect(JSON.stringify(record)).not.toContain('Mallory')
  })

  it('never shows a user another subscription’s data (404, as for a token)', async () => {
    const other = await t.newClient()
    const a = api(t, other)
    const number = trackingNumber()
    const { packageId } = await a.ok('POST', '/api/v1/packages', { package: { trackingNumber: number } })
    const s = await clerk()
    const byId = await t.inject({
      method: 'GET',
      url: `/api/v1/packages/${packageId}?type=DETAILED`,
      cookies: s.cookies,
    })
    expect(byId.statusCode).toBe(404)
    const update = await t.inject({
      method: 'PUT',
      url: `/api/v1/packages/${packageId}`,
      ...s.write,
      payload: { package: { comment: 'mine now' } },
    })
    expect(update.statusCode).toBe(404)
    const search = await t.inject({
      method: 'GET',
      url: `/api/v1/packages?search=trackingNumber:${number}`,
      cookies: s.cookies,
    })
    expect(search.json().totalCount).toBe(0)
    // And the users of the other subscription are not listed to this one's admin.
    await createUser(t, other, { email: email('elsewhere'), role: 'admin' })
    const mine = await t.inject({ method: 'GET', url: '/api/v1/users', headers: admin.auth })
    expect(mine.json().users.every((u: { subscription: string }) => u.subscription === admin.subId)).toBe(true)
  })
})

describe('Secure under an https public URL', () => {
  const https = useTestApp({ MAILROOM_PUBLIC_URL: 'https://mail.example.com' })
  const client = useClient(https)
  it('marks the cookie Secure', async () => {
    await createUser(https, client, { email: 'secure@example.com', role: 'clerk' })
    const res = await https.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: { email: 'secure@example.com', password: 'correct horse battery' },
    })
    expect(res.statusCode).toBe(200)
    const setCookie = String(res.headers['set-cookie'])
    expect(setCookie).toContain('; Secure')
    expect(setCookie).toContain('HttpOnly')
    expect(setCookie).toContain('SameSite=Strict')
  })
})

describe('Secure when the request came over TLS through a trusted proxy', () => {
  const proxied = useTestApp({ TRUST_PROXY: 'true' })
  const client = useClient(proxied)
  it('marks the cookie Secure for https, not for http', async () => {
    await createUser(proxied, client, { email: 'proxied@example.com', role: 'clerk' })
    const signInOver = (proto: string) =>
      proxied.inject({
        method: 'POST',
        url: '/console/api/session',
        headers: { 'x-forwarded-proto': proto },
        payload: { email: 'proxied@example.com', password: 'correct horse battery' },
      })
    expect(String((await signInOver('https')).headers['set-cookie'])).toContain('; Secure')
    expect(String((await signInOver('http')).headers['set-cookie'])).not.toContain('Secure')
  })
})
