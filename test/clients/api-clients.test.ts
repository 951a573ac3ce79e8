import { describe, expect, it } from 'vitest'
import { basic } from '../support/build-test-app.js'
import { createUser, signIn } from '../support/console-session.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// The API clients of a subscription over HTTP (issue 18): list, create, rename, disable, new secret.
const t = useTestApp()
const admin = useClient(t)
const other = useClient(t)

let ip = 0
const token = (clientId: string, secret: string) =>
  t.inject({
    method: 'POST',
    url: '/auth/api/v1/token',
    headers: { authorization: basic(clientId, secret) },
    remoteAddress: `10.9.0.${++ip}`,
  })
const bearer = async (clientId: string, secret: string) => {
  const res = await token(clientId, secret)
  expect(res.statusCode, res.body).toBe(200)
  return { authorization: `Bearer ${res.json().access_token as string}` }
}
const fields = (body: { errors: Array<{ additionalParameters: string }> }) =>
  body.errors.map((e) => e.additionalParameters).sort()

async function create(name: string, headers = admin.auth) {
  const res = await t.inject({ method: 'POST', url: '/api/v1/clients', headers, payload: { name } })
  expect(res.statusCode, res.body).toBe(201)
  return res.json<{ clientId: string; clientSecret: string; name: string; status: string; createdAt: string }>()
}

describe('the clients API', () => {
  it('creates a client whose secret, shown once, gets tokens; lists the subscription’s clients without secrets', async () => {
    const created = await create(' Warehouse scanner ')
    expect(created).toEqual({
      clientId: expect.stringMatching(/^mrc_/),
      clientSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      name: 'Warehouse scanner',
      status: 'active',
      createdAt: expect.any(String),
    })
    const auth = await bearer(created.clientId, created.clientSecret)
    const who = await t.inject({ method: 'GET', url: '/api/v1/session', headers: auth })
    expect(who.json()).toMatchObject({ clientId: created.clientId, subId: admin.subId })

    const list = await t.inject({ method: 'GET', url: '/api/v1/clients', headers: admin.auth })
    expect(list.statusCode).toBe(200)
    const { clients } = list.json<{ clients: Array<Record<string, string>> }>()
    expect(clients.map((c) => c.clientId)).toEqual([admin.clientId, created.clientId])
    expect(clients[1]).toEqual({
      clientId: created.clientId,
      name: 'Warehouse scanner',
      status: 'active',
      createdAt: created.createdAt,
    })
    expect(list.body).not.toContain(created.clientSecret)
    expect(list.body).not.toMatch(/secret|hash/i)
    // Another subscription sees only its own.
    const theirs = await t.inject({ method: 'GET', url: '/api/v1/clients', headers: other.auth })
    expect(theirs.json().clients.map((c: { clientId: string }) => c.clientId)).toEqual([other.clientId])
  })

  it('refuses a missing, blank or over-long name, and unknown fields (400 naming each)', async () => {
    for (const [payload, named] of [
      [{}, ['name']],
      [{ name: '   ' }, ['name']],
      [{ name: 'x'.repeat(101) }, ['name']],
      [{ name: 'ok', clientSecret: 'mine' }, ['clientSecret']],
    ] as const) {
      const res = await t.inject({ method: 'POST', url: '/api/v1/clients', headers: admin.auth, payload })
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(fields(res.json())).toEqual(named)
    }
  })

  it('renames, disables (its secret and tokens refused at once) and re-enables a client', async () => {
    const c = await create('Locker bank')
    const auth = await bearer(c.clientId, c.clientSecret)
    const patch = (payload: object) =>
      t.inject({ method: 'PATCH', url: `/api/v1/clients/${c.clientId}`, headers: admin.auth, payload })

    const renamed = await patch({ name: 'Locker bank A' })
    expect(renamed.statusCode).toBe(200)
    expect(renamed.json()).toEqual({
      clientId: c.clientId,
      name: 'Locker bank A',
      status: 'active',
      createdAt: c.createdAt,
    })

    const disabled = await patch({ status: 'disabled' })
    expect(disabled.statusCode).toBe(200)
    expect(disabled.json()).toMatchObject({ name: 'Locker bank A', status: 'disabled' })
    expect((await t.inject({ method: 'GET', url: '/api/v1/session', headers: auth })).statusCode).toBe(401)
    expect((await token(c.clientId, c.clientSecret)).statusCode).toBe(401)

    const enabled = await patch({ status: 'active' })
    expect(enabled.json().status).toBe('active')
    expect((await t.inject({ method: 'GET', url: '/api/v1/session', headers: auth })).statusCode).toBe(200)
    const bad = await patch({ status: 'paused', name: 'x'.repeat(101) })
    expect(bad.statusCode).toBe(400)
    expect(fields(bad.json())).toEqual(['name', 'status'])
  })

  it('answers 404 alike for another subscription’s client and an unknown id, and changes nothing', async () => {
    const theirs = await t.inject({
      method: 'POST',
      url: '/api/v1/clients',
      headers: other.auth,
      payload: { name: 'Theirs' },
    })
    const theirId = theirs.json().clientId as string
    const answers = []
    for (const id of [theirId, 'mrc_nope']) {
      const patch = await t.inject({
        method: 'PATCH',
        url: `/api/v1/clients/${id}`,
        headers: admin.auth,
        payload: { status: 'disabled' },
      })
      const secret = await t.inject({ method: 'POST', url: `/api/v1/clients/${id}/secret`, headers: admin.auth })
      expect(patch.statusCode).toBe(404)
      expect(secret.statusCode).toBe(404)
      answers.push([patch.json().errors[0].errorDescription, patch.json().errors[0].additionalCode])
    }
    expect(answers[0]).toEqual(answers[1])
    expect((await token(theirId, theirs.json().clientSecret)).statusCode).toBe(200)
  })

  it('does not let a client disable itself with its own token (400 naming status); another client may', async () => {
    const self = await t.inject({
      method: 'PATCH',
      url: `/api/v1/clients/${admin.clientId}`,
      headers: admin.auth,
      payload: { status: 'disabled' },
    })
    expect(self.statusCode).toBe(400)
    expect(fields(self.json())).toEqual(['status'])
    expect((await t.inject({ method: 'GET', url: '/api/v1/session', headers: admin.auth })).statusCode).toBe(200)
    // Renaming itself is fine.
    const renamed = await t.inject({
      method: 'PATCH',
      url: `/api/v1/clients/${admin.clientId}`,
      headers: admin.auth,
      payload: { name: 'Main integration' },
    })
    expect(renamed.statusCode).toBe(200)
    const second = await create('Second')
    const byOther = await t.inject({
      method: 'PATCH',
      url: `/api/v1/clients/${second.clientId}`,
      headers: await bearer(second.clientId, second.clientSecret),
      payload: { status: 'disabled' },
    })
    expect(byOther.statusCode).toBe(400)
    const third = await create('Third')
    const ok = await t.inject({
      method: 'PATCH',
      url: `/api/v1/clients/${third.clientId}`,
      headers: await bearer(second.clientId, second.clientSecret),
      payload: { status: 'disabled' },
    })
    expect(ok.statusCode).toBe(200)
  })

  it('gives a new secret: the old one and the tokens issued with it stop working at once', async () => {
    const c = await create('Rotating')
    const oldToken = await bearer(c.clientId, c.clientSecret)
    const res = await t.inject({ method: 'POST', url: `/api/v1/clients/${c.clientId}/secret`, headers: admin.auth })
    expect(res.statusCode).toBe(200)
    const { clientId, clientSecret } = res.json<{ clientId: string; clientSecret: string }>()
    expect(Object.keys(res.json()).sort()).toEqual(['clientId', 'clientSecret'])
    expect(clientId).toBe(c.clientId)
    expect(clientSecret).not.toBe(c.clientSecret)
    expect((await token(c.clientId, c.clientSecret)).statusCode).toBe(401)
    const refused = await t.inject({ method: 'GET', url: '/api/v1/session', headers: oldToken })
    expect(refused.statusCode).toBe(401)
    expect(refused.json().message).toContain('secret was replaced')
    // A token of the new secret, issued in the same second, works.
    const fresh = await bearer(c.clientId, clientSecret)
    expect((await t.inject({ method: 'GET', url: '/api/v1/session', headers: fresh })).statusCode).toBe(200)
    // And so does every other client's token.
    expect((await t.inject({ method: 'GET', url: '/api/v1/session', headers: admin.auth })).statusCode).toBe(200)
  })

  it('honours a new secret in another process of the deployment as soon as it reads the client again', async () => {
    const c = await create('Shared')
    const oldToken = await bearer(c.clientId, c.clientSecret)
    const second = await t.secondProcess()
    expect((await second.inject({ method: 'GET', url: '/api/v1/session', headers: oldToken })).statusCode).toBe(200)
    await t.inject({ method: 'POST', url: `/api/v1/clients/${c.clientId}/secret`, headers: admin.auth })
    // PGlite has no other process to tell; the status cache's bound (CLIENT_STATUS_CACHE_SECONDS) applies.
    t.clock.advance((t.config.clientStatusCacheSeconds + 1) * 1000)
    expect((await second.inject({ method: 'GET', url: '/api/v1/session', headers: oldToken })).statusCode).toBe(401)
  })
})

describe('who may manage clients', () => {
  it('refuses a clerk (403) and lets an admin user do it with the session cookie', async () => {
    await createUser(t, admin, { email: 'clerk@clients.example.com', role: 'clerk' })
    await createUser(t, admin, { email: 'boss@clients.example.com', role: 'admin' })
    const clerk = await signIn(t, 'clerk@clients.example.com')
    const boss = await signIn(t, 'boss@clients.example.com')
    expect((await t.inject({ method: 'GET', url: '/api/v1/clients', cookies: clerk.cookies })).statusCode).toBe(403)
    const made = await t.inject({ method: 'POST', url: '/api/v1/clients', ...clerk.write, payload: { name: 'x' } })
    expect(made.statusCode).toBe(403)

    const created = await t.inject({
      method: 'POST',
      url: '/api/v1/clients',
      ...boss.write,
      payload: { name: 'By Boss' },
    })
    expect(created.statusCode).toBe(201)
    // A person is not the client: an admin user may disable any client, the one they are looking at included.
    const disabled = await t.inject({
      method: 'PATCH',
      url: `/api/v1/clients/${created.json().clientId}`,
      ...boss.write,
      payload: { status: 'disabled' },
    })
    expect(disabled.statusCode).toBe(200)
    const listed = await t.inject({ method: 'GET', url: '/api/v1/clients', cookies: boss.cookies })
    expect(listed.json().clients.find((c: { name: string }) => c.name === 'By Boss').status).toBe('disabled')
  })
})
