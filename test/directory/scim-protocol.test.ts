import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/use-test-app.js'
import { q, scimCaller } from './scim-support.js'

const t = useTestApp()

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'

describe('SCIM authentication and tokens', () => {
  it('refuses requests without a live token of the subscription, with a SCIM 401', async () => {
    for (const authorization of [undefined, 'Bearer nope', 'Bearer mrscim_sct_x.y', 'Basic abc']) {
      const res = await t.inject({
        method: 'GET',
        url: '/scim/v2/Users',
        headers: authorization ? { authorization } : {},
      })
      expect(res.statusCode).toBe(401)
      expect(res.headers['content-type']).toMatch(/^application\/scim\+json/)
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/)
      expect(res.json()).toEqual({ schemas: [ERROR], status: '401', detail: expect.any(String) })
    }
    // An API access token is not a SCIM token.
    const c = await t.newClient()
    const res = await t.inject({ method: 'GET', url: '/scim/v2/Users', headers: c.auth })
    expect(res.statusCode).toBe(401)
  })

  it('shows a token once, lists it without the secret, and a revoked token stops at once', async () => {
    const c = await t.newClient()
    const scim = await scimCaller(t, c, 'Okta')
    expect(scim.token).toMatch(/^mrscim_sct_\S+\.\S{40,}$/)
    const list = await t.inject({ method: 'GET', url: '/api/v1/directory/scim/tokens', headers: c.auth })
    expect(list.statusCode).toBe(200)
    const [listed] = list.json().tokens
    expect(list.json()).toEqual({
      tokens: [{ tokenId: listed.tokenId, name: 'Okta', createdAt: expect.any(String) }],
      scimUrl: expect.stringMatching(/\/scim\/v2$/),
    })
    expect(JSON.stringify(list.json())).not.toContain(scim.token.split('.')[1])
    const stored = await t.ctx.db
      .selectFrom('scim_tokens')
      .select('secret_hash')
      .where('token_id', '=', listed.tokenId)
      .executeTakeFirstOrThrow()
    expect(stored.secret_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(stored.secret_hash).not.toContain(scim.token.split('.')[1])
    await scim.ok('GET', '/Users')
    // A tampered secret fails.
    const tampered = await t.inject({
      method: 'GET',
      url: '/scim/v2/Users',
      headers: { authorization: `Bearer ${scim.token}x` },
    })
    expect(tampered.statusCode).toBe(401)
    const del = await t.inject({
      method: 'DELETE',
      url: `/api/v1/directory/scim/tokens/${listed.tokenId}`,
      headers: c.auth,
    })
    expect(del.statusCode).toBe(200)
    expect((await scim.call('GET', '/Users')).statusCode).toBe(401)
    const again = await t.inject({
      method: 'DELETE',
      url: `/api/v1/directory/scim/tokens/${listed.tokenId}`,
      headers: c.auth,
    })
    expect(again.statusCode).toBe(404)
  })

  it('keeps subscriptions apart: one token sees and changes only its own users', async () => {
    const a = await scimCaller(t, await t.newClient())
    const b = await scimCaller(t, await t.newClient())
    const mine = await a.ok('POST', '/Users', { schemas: [USER], userName: 'same@example.com', active: true })
    // The same userName in another subscription is another person.
    await b.ok('POST', '/Users', { schemas: [USER], userName: 'same@example.com', active: true })
    expect((await b.ok('GET', '/Users')).totalResults).toBe(1)
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { schemas: [USER], userName: 'x@example.com' }],
      ['PATCH', { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] }],
      ['DELETE', undefined],
    ] as const) {
      const res = await b.call(method, `/Users/${mine.id}`, body)
      expect(res.statusCode, `${method} ${res.body}`).toBe(404)
      expect(res.json()).toMatchObject({ schemas: [ERROR], status: '404' })
    }
    expect(await a.ok('GET', `/Users/${mine.id}`)).toMatchObject({ active: true })
  })
})

describe('SCIM protocol', () => {
  it('describes itself: ServiceProviderConfig, ResourceTypes, Schemas', async () => {
    const scim = await scimCaller(t, await t.newClient())
    const spc = await scim.ok('GET', '/ServiceProviderConfig')
    expect(spc).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      authenticationSchemes: [{ type: 'oauthbearertoken' }],
    })
    const types = await scim.ok('GET', '/ResourceTypes')
    expect(types.Resources.map((r: { id: string }) => r.id)).toEqual(['User', 'Group'])
    expect(await scim.ok('GET', '/ResourceTypes/User')).toMatchObject({ endpoint: '/Users', schema: USER })
    const schemas = await scim.ok('GET', '/Schemas')
    expect(schemas.Resources.map((r: { id: string }) => r.id)).toContain(USER)
    expect(await scim.ok('GET', `/Schemas/${USER}`)).toMatchObject({ id: USER, name: 'User' })
    expect((await scim.call('GET', '/Schemas/urn:nope')).statusCode).toBe(404)
    // An unknown SCIM path answers in SCIM's error body, not the API's (so not through the API document's check).
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/scim/v2/Bulk',
      headers: { authorization: `Bearer ${scim.token}` },
    })
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json()).toMatchObject({ schemas: [ERROR], status: '404' })
  })

  it('answers errors as SCIM errors: bad filters, bad JSON, bad values, unknown ids', async () => {
    const scim = await scimCaller(t, await t.newClient())
    for (const filter of ['userName eq', 'title eq "x"', 'userName gt "a"', 'active eq "yes"'])
      expect(
        await scim.call('GET', `/Users?filter=${q(filter)}`).then((r) => [r.statusCode, r.json().scimType]),
      ).toEqual([400, 'invalidFilter'])
    const bad = await t.inject({
      method: 'POST',
      url: '/scim/v2/Users',
      headers: { authorization: `Bearer ${scim.token}`, 'content-type': 'application/scim+json' },
      payload: '{"userName": ',
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidSyntax' })
    const noName = await scim.call('POST', '/Users', { schemas: [USER], active: true })
    expect([noName.statusCode, noName.json().scimType]).toEqual([400, 'invalidValue'])
    const badMail = await scim.call('POST', '/Users', {
      schemas: [USER],
      userName: 'ann',
      emails: [{ value: 'Ann <ann@example.com>', primary: true }],
    })
    expect([badMail.statusCode, badMail.json().scimType]).toEqual([400, 'invalidValue'])
    expect(badMail.json().detail).toMatch(/emails/)
    const badPatch = await scim.call('PATCH', '/Users/con_missing', { Operations: [] })
    expect([badPatch.statusCode, badPatch.json().scimType]).toEqual([400, 'invalidSyntax'])
    expect((await scim.call('GET', '/Users/con_missing')).statusCode).toBe(404)
    expect((await scim.ok('GET', '/Users')).totalResults).toBe(0)
    // A URL the framework refuses before any route (a lone surrogate's percent-encoding) is a SCIM error too.
    const badUrl = await t.inject({
      method: 'GET',
      url: '/scim/v2/Groups/%3F%ED%A0%80',
      headers: { authorization: `Bearer ${scim.token}` },
    })
    expect(badUrl.statusCode).toBe(400)
    expect(badUrl.headers['content-type']).toMatch(/^application\/scim\+json/)
    expect(badUrl.json()).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidSyntax' })
  })

  it('refuses PATCH paths that reach a prototype with 400 invalidPath, leaving Object.prototype alone', async () => {
    const scim = await scimCaller(t, await t.newClient())
    const user = await scim.ok('POST', '/Users', { schemas: [USER], userName: 'proto@example.com' })
    const enterprise = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'
    for (const op of [
      { op: 'add', path: `${enterprise}:__proto__.x`, value: 'p' },
      { op: 'add', path: '__proto__.x', value: 'p' },
      { op: 'add', path: 'constructor.prototype.x', value: 'p' },
      { op: 'add', value: { '__proto__.x': 'p' } },
      { op: 'add', value: JSON.parse('{"__proto__": {"x": "p"}}') },
    ]) {
      const res = await scim.call('PATCH', `/Users/${user.id}`, { schemas: [PATCH], Operations: [op] })
      expect([res.statusCode, res.json().scimType], JSON.stringify(op)).toEqual([400, 'invalidPath'])
      expect(({} as Record<string, unknown>).x).toBeUndefined()
    }
  })

  it('answers hostile input with 400s, never a 500: deep bodies, deep paths, huge startIndex', async () => {
    const scim = await scimCaller(t, await t.newClient())
    const user = await scim.ok('POST', '/Users', { schemas: [USER], userName: 'deep@example.com' })
    const deepPath = `name.${'a.'.repeat(5000)}b`
    const res = await scim.call('PATCH', `/Users/${user.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: deepPath, value: 'x' }],
    })
    expect([res.statusCode, res.json().scimType]).toEqual([400, 'invalidPath'])
    expect(res.json().detail).toMatch(/at most 5/)
    const pathless = await scim.call('PATCH', `/Users/${user.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', value: { [deepPath]: 'x' } }],
    })
    expect([pathless.statusCode, pathless.json().scimType]).toEqual([400, 'invalidPath'])
    for (const type of ['application/scim+json', 'application/json']) {
      const deep = await t.inject({
        method: 'POST',
        url: '/scim/v2/Users',
        headers: { authorization: `Bearer ${scim.token}`, 'content-type': type },
        payload: `{"schemas": ["${USER}"], "userName": "x", "a": ${'['.repeat(1000)}${']'.repeat(1000)}}`,
      })
      expect([deep.statusCode, deep.json().scimType], type).toEqual([400, 'invalidSyntax'])
    }
    for (const query of ['startIndex=1e20', 'startIndex=2147483648', 'count=1e20']) {
      const r = await scim.call('GET', `/Users?${query}`)
      expect([r.statusCode, r.json().scimType], query).toEqual([400, 'invalidSyntax'])
    }
    expect(await scim.ok('GET', '/Users?startIndex=2147483647&count=1000')).toMatchObject({
      totalResults: 1,
      itemsPerPage: 0,
    })
  })

  it('pages with startIndex and count, and filters with the operators providers use', async () => {
    const scim = await scimCaller(t, await t.newClient())
    for (const n of [1, 2, 3, 4, 5])
      await scim.ok('POST', '/Users', {
        schemas: [USER],
        userName: `user${n}@example.com`,
        externalId: `ext-${n}`,
        displayName: `User ${n}`,
        emails: [{ value: `user${n}@example.com`, primary: true }],
        active: n !== 5,
      })
    const page = await scim.ok('GET', '/Users?startIndex=2&count=2')
    expect(page).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 })
    expect(page.Resources.map((r: { userName: string }) => r.userName)).toEqual([
      'user2@example.com',
      'user3@example.com',
    ])
    expect(await scim.ok('GET', '/Users?count=0')).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] })
    const count = async (filter: string) => (await scim.ok('GET', `/Users?filter=${q(filter)}`)).totalResults
    expect(await count('userName eq "USER1@example.com"')).toBe(1)
    expect(await count('userName sw "user"')).toBe(5)
    expect(await count('userName co "3@"')).toBe(1)
    expect(await count('externalId eq "ext-2" or externalId eq "ext-4"')).toBe(2)
    expect(await count('externalId eq "EXT-2"')).toBe(0)
    expect(await count('active eq false')).toBe(1)
    expect(await count('active eq true and not (userName eq "user1@example.com")')).toBe(3)
    expect(await count('emails.value ew "5@example.com"')).toBe(1)
    expect(await count('externalId pr')).toBe(5)
    // % and _ are literal, not LIKE wildcards.
    expect(await count('userName co "%"')).toBe(0)
    expect(await count('userName sw "user_"')).toBe(0)
    const only = await scim.ok('GET', `/Users?attributes=userName&filter=${q('userName eq "user1@example.com"')}`)
    expect(Object.keys(only.Resources[0]).sort()).toEqual(['id', 'meta', 'schemas', 'userName'])
  })

  it('does not reach contacts it did not provision: desk contacts are 404 to SCIM until a POST adopts them', async () => {
    const c = await t.newClient()
    const scim = await scimCaller(t, c)
    const desk = await t.inject({
      method: 'POST',
      url: '/api/v1/contacts',
      headers: c.auth,
      payload: { contactType: 'RECEIVER', name: 'Dee Desk', email: 'dee@example.com' },
    })
    expect(desk.statusCode, desk.body).toBe(201)
    const id = desk.json().contactId as string
    const user = { schemas: [USER], userName: 'dee@example.com', active: false }
    const patch = { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] }
    for (const [method, body] of [['GET'], ['PUT', user], ['PATCH', patch], ['DELETE']] as const)
      expect((await scim.call(method, `/Users/${id}`, body)).statusCode, method).toBe(404)
    const after = await t.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: c.auth })
    expect(after.json()).toMatchObject({ name: 'Dee Desk', status: 'active' })
    expect((await scim.ok('GET', '/Users')).totalResults).toBe(0)
  })

  it('adopts a contact typed at the desk with the same email instead of duplicating it', async () => {
    const c = await t.newClient()
    const scim = await scimCaller(t, c)
    const desk = await t.inject({
      method: 'POST',
      url: '/api/v1/contacts',
      headers: c.auth,
      payload: { contactType: 'RECEIVER', name: 'Ann Desk', email: 'ann@example.com', unit: '4B' },
    })
    expect(desk.statusCode, desk.body).toBe(201)
    const created = await scim.ok('POST', '/Users', {
      schemas: [USER],
      userName: 'ann@example.com',
      displayName: 'Ann Idp',
      emails: [{ value: 'ANN@example.com', primary: true }],
    })
    expect(created.id).toBe(desk.json().contactId)
    // The room the desk typed stays: the provider sends no mailroom extension.
    expect(
      (await t.inject({ method: 'GET', url: `/api/v1/contacts/${created.id}`, headers: c.auth })).json(),
    ).toMatchObject({
      name: 'Ann Idp',
      unit: '4B',
      source: 'scim',
    })
  })
})
