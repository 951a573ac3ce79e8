import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import type { TestClient } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
const call = (c: TestClient, method: Method, url: string, payload?: unknown) =>
  t.inject({ method, url, payload: payload as never, headers: c.auth })
const fields = (res: LightMyRequestResponse) =>
  res
    .json()
    .errors.map((e: { additionalParameters?: string }) => e.additionalParameters)
    .sort()

/** An inbound site straight in the table: the sites API belongs to another domain. */
async function insertSite(subId: string, name: string, deleted = false): Promise<string> {
  const siteId = `site_${name.toLowerCase().replace(/\W/g, '')}_${Math.random().toString(36).slice(2, 8)}`
  const at = t.clock.now()
  await t.ctx.db
    .insertInto('inbound_sites')
    .values({
      site_id: siteId,
      sub_id: subId,
      name,
      type: 'site',
      parent_id: null,
      location_id: null,
      ancestor_ids: [],
      path_names: [name],
      status: 'active',
      is_primary: false,
      created_at: at,
      updated_at: at,
      deleted_at: deleted ? at : null,
    })
    .execute()
  return siteId
}

async function create(c: TestClient, body: Record<string, unknown>): Promise<string> {
  const res = await call(c, 'POST', '/api/v1/contacts', body)
  expect(res.statusCode, res.body).toBe(201)
  return res.json().contactId
}

describe('contacts', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'POST', url: '/api/v1/contacts', payload: { contactType: 'SENDER', name: 'x' } },
      { method: 'GET', url: '/api/v1/contacts' },
      { method: 'GET', url: '/api/v1/contacts/con_x' },
      { method: 'PUT', url: '/api/v1/contacts/con_x', payload: { name: 'y' } },
      { method: 'DELETE', url: '/api/v1/contacts/con_x' },
    ],
  )

  it('creates, reads and lists a contact with exactly the record fields', async () => {
    const c = await t.newClient()
    const site = await insertSite(c.subId, 'HQ')
    const mailStop = await insertSite(c.subId, 'MS 12')
    const res = await call(c, 'POST', '/api/v1/contacts', {
      contactType: 'RECEIVER',
      name: '  Ada Lovelace ',
      company: 'Analytical Engines',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
      personalId: 'E-1815',
      location: { inboundSiteId: site },
      mailStopLocation: { inboundSiteId: mailStop },
    })
    expect(res.statusCode).toBe(201)
    const body = res.json()
    expect(body.contactId).toMatch(/^con_[0-9a-z]+$/)
    expect(body).toEqual({
      contactId: body.contactId,
      contactType: 'RECEIVER',
      name: 'Ada Lovelace',
      company: 'Analytical Engines',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
      personalId: 'E-1815',
      location: { inboundSiteId: site },
      mailStopLocation: { inboundSiteId: mailStop },
      status: 'active',
      notify: true,
      aliases: [],
      source: 'manual',
      group: false,
    })
    expect((await call(c, 'GET', `/api/v1/contacts/${body.contactId}`)).json()).toEqual(body)

    const minimal = (
      await call(c, 'POST', '/api/v1/contacts', {
        contactType: 'SENDER',
        name: 'Acme',
        company: '',
        email: '  ',
        status: 'inactive',
      })
    ).json()
    expect(minimal).toEqual({
      contactId: minimal.contactId,
      contactType: 'SENDER',
      name: 'Acme',
      status: 'inactive',
      notify: true,
      aliases: [],
      source: 'manual',
      group: false,
    })

    const list = await call(c, 'GET', '/api/v1/contacts')
    expect(list.statusCode).toBe(200)
    expect(list.json()).toEqual({ contacts: [minimal, body], totalCount: 2 })
  })

  it('refuses bad input with a 400 naming each field, and writes nothing', async () => {
    const c = await t.newClient()
    const other = await t.newClient()
    const foreignSite = await insertSite(other.subId, 'Theirs')
    const goneSite = await insertSite(c.subId, 'Gone', true)
    const ok = { contactType: 'RECEIVER', name: 'Valid Name' }
    const cases: Array<[unknown, string[]]> = [
      [{}, ['contactType', 'name']],
      [{ contactType: 'BOSS', name: 'x' }, ['contactType']],
      [{ contactType: 'sender', name: 'x' }, ['contactType']],
      [{ ...ok, name: { first: 'Ada' } }, ['name']],
      [{ ...ok, name: '   ' }, ['name']],
      [{ ...ok, name: 'x'.repeat(201) }, ['name']],
      [
        { ...ok, company: 'x'.repeat(201), phone: 'x'.repeat(51), personalId: 'x'.repeat(101) },
        ['company', 'personalId', 'phone'],
      ],
      [{ ...ok, email: 'not-an-email' }, ['email']],
      [{ ...ok, email: 'ada@localhost' }, ['email']],
      [{ ...ok, email: 'a b@example.com' }, ['email']],
      [{ ...ok, email: `${'x'.repeat(250)}@example.com` }, ['email']],
      // Issue 26: one plain addr-spec, nothing a mail library could read as another recipient.
      [{ ...ok, email: 'Bob <bob@example.com>' }, ['email']],
      [{ ...ok, email: '<bob@example.com>' }, ['email']],
      [{ ...ok, email: 'bob@example.com,eve@evil.example' }, ['email']],
      [{ ...ok, email: 'bob@example.com;eve@evil.example' }, ['email']],
      [{ ...ok, email: 'bob(comment)@example.com' }, ['email']],
      [{ ...ok, email: '"bob"@example.com' }, ['email']],
      [{ ...ok, email: 'bob@example.com>' }, ['email']],
      [{ ...ok, email: 'bob..x@example.com' }, ['email']],
      [{ ...ok, email: 'bob@-example.com' }, ['email']],
      [{ ...ok, email: `${'x'.repeat(65)}@example.com` }, ['email']],
      [{ ...ok, status: 'gone' }, ['status']],
      [{ ...ok, location: {} }, ['location.inboundSiteId']],
      [{ ...ok, location: { inboundSiteId: 'bad id!' } }, ['location.inboundSiteId']],
      [{ ...ok, location: { inboundSiteId: 'site_missing' } }, ['location.inboundSiteId']],
      [{ ...ok, location: { inboundSiteId: goneSite } }, ['location.inboundSiteId']],
      [
        {
          ...ok,
          email: 'nope',
          location: { inboundSiteId: foreignSite },
          mailStopLocation: { inboundSiteId: 'site_missing' },
        },
        ['email', 'location.inboundSiteId', 'mailStopLocation.inboundSiteId'],
      ],
    ]
    for (const [body, expected] of cases) {
      const res = await call(c, 'POST', '/api/v1/contacts', body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(fields(res), JSON.stringify(body)).toEqual(expected)
      for (const e of res.json().errors)
        expect(e).toMatchObject({
          errorCode: 'validation_error',
          correlationID: expect.any(String),
          errorDescription: expect.any(String),
        })
    }
    expect((await call(c, 'GET', '/api/v1/contacts')).json().totalCount).toBe(0)
  })

  it('updates by merging: given fields replace, null or "" clears, absent stays', async () => {
    const c = await t.newClient()
    const site = await insertSite(c.subId, 'Tower')
    const id = await create(c, {
      contactType: 'RECEIVER',
      name: 'Grace Hopper',
      company: 'Navy',
      email: 'grace@example.com',
      phone: '555',
      location: { inboundSiteId: site },
    })
    const res = await call(c, 'PUT', `/api/v1/contacts/${id}`, {
      name: 'Grace B. Hopper',
      company: null,
      email: '',
      contactType: 'ALL',
      personalId: 'N-1906',
    })
    expect(res.statusCode, res.body).toBe(200)
    const expected = {
      contactId: id,
      contactType: 'ALL',
      name: 'Grace B. Hopper',
      phone: '555',
      personalId: 'N-1906',
      location: { inboundSiteId: site },
      status: 'active',
      notify: true,
      aliases: [],
      source: 'manual',
      group: false,
    }
    expect(res.json()).toEqual(expected)
    expect((await call(c, 'GET', `/api/v1/contacts/${id}`)).json()).toEqual(expected)

    const cleared = await call(c, 'PUT', `/api/v1/contacts/${id}`, { location: null, status: 'inactive' })
    expect(cleared.json()).toEqual({ ...expected, location: undefined, status: 'inactive' })
    expect(cleared.json()).not.toHaveProperty('location')

    // The match key follows the name.
    expect(await t.ctx.companions.contacts.findMatches(c.subId, 'GRACE B HOPPER')).toEqual([])
    await call(c, 'PUT', `/api/v1/contacts/${id}`, { status: 'active' })
    expect((await t.ctx.companions.contacts.findMatches(c.subId, 'GRACE B HOPPER')).map((m) => m.contactId)).toEqual([
      id,
    ])
  })

  it('refuses a bad update with 400 and leaves the contact as it was', async () => {
    const c = await t.newClient()
    const id = await create(c, { contactType: 'SENDER', name: 'Sender One', email: 'one@example.com' })
    const before = (await call(c, 'GET', `/api/v1/contacts/${id}`)).json()
    const cases: Array<[unknown, string[]]> = [
      [{ contactType: 'NOBODY' }, ['contactType']],
      [{ name: '' }, ['name']],
      [{ name: null }, ['name']],
      [{ email: 'two@' }, ['email']],
      [{ email: 'Two <two@example.com>' }, ['email']],
      [{ location: { inboundSiteId: 'site_missing' }, status: 'active' }, ['location.inboundSiteId']],
      [{ status: 'deleted' }, ['status']],
    ]
    for (const [body, expected] of cases) {
      const res = await call(c, 'PUT', `/api/v1/contacts/${id}`, body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(fields(res), JSON.stringify(body)).toEqual(expect.arrayContaining(expected))
    }
    expect((await call(c, 'GET', `/api/v1/contacts/${id}`)).json()).toEqual(before)
  })

  it("answers 404 for another subscription's contact on every id route, and changes nothing", async () => {
    const owner = await t.newClient()
    const stranger = await t.newClient()
    const id = await create(owner, { contactType: 'RECEIVER', name: 'Private Person', email: 'p@example.com' })
    const before = (await call(owner, 'GET', `/api/v1/contacts/${id}`)).json()
    for (const [method, payload] of [
      ['GET', undefined],
      ['PUT', { name: 'Hijacked' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(stranger, method, `/api/v1/contacts/${id}`, payload)
      expect(res.statusCode, method).toBe(404)
      expect(res.json().errors).toEqual([
        {
          errorCode: 'not_found',
          errorDescription: 'No such contact.',
          additionalCode: 'CON-4040',
          additionalInfo: '',
          additionalParameters: '',
          correlationID: expect.any(String),
        },
      ])
    }
    expect((await call(stranger, 'GET', '/api/v1/contacts?query=priv')).json()).toEqual({ contacts: [], totalCount: 0 })
    expect((await call(owner, 'GET', `/api/v1/contacts/${id}`)).json()).toEqual(before)
    expect((await t.ctx.companions.contacts.getByIds(stranger.subId, [id])).size).toBe(0)
    expect(await t.ctx.companions.contacts.findMatches(stranger.subId, 'Private Person')).toEqual([])
    expect((await call(owner, 'GET', '/api/v1/contacts/con_doesnotexist')).statusCode).toBe(404)
    expect((await call(owner, 'GET', '/api/v1/contacts/bad%20id!')).statusCode).toBe(400)
  })

  it('deletes softly: 404 afterwards, no longer listed or matched, still readable for package history', async () => {
    const c = await t.newClient()
    const id = await create(c, { contactType: 'RECEIVER', name: 'Leaving Soon' })
    const del = await call(c, 'DELETE', `/api/v1/contacts/${id}`)
    expect(del.statusCode).toBe(200)
    expect(del.json()).toEqual({})
    for (const [method, payload] of [
      ['GET', undefined],
      ['PUT', { name: 'Back' }],
      ['DELETE', undefined],
    ] as const) {
      expect((await call(c, method, `/api/v1/contacts/${id}`, payload)).statusCode, method).toBe(404)
    }
    expect((await call(c, 'GET', '/api/v1/contacts')).json()).toEqual({ contacts: [], totalCount: 0 })
    expect(await t.ctx.companions.contacts.findMatches(c.subId, 'Leaving Soon')).toEqual([])
    const kept = await t.ctx.companions.contacts.getByIds(c.subId, [id, id, 'con_unknown'])
    expect([...kept.values()]).toEqual([
      {
        contactId: id,
        contactType: 'RECEIVER',
        name: 'Leaving Soon',
        status: 'active',
        notify: true,
        aliases: [],
        source: 'manual',
        group: false,
        deleted: true,
      },
    ])
  })
})
