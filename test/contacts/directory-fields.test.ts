import { describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'

// Issues 27 and 28: what a directory knows of a person, through the contacts API.
const t = useTestApp()

type Method = 'GET' | 'POST' | 'PUT'
const call = (c: TestClient, method: Method, url: string, payload?: unknown) =>
  t.inject({ method, url, payload: payload as never, headers: c.auth })
const fieldsOf = (body: { errors: Array<{ additionalParameters?: string }> }) =>
  body.errors.map((e) => e.additionalParameters).sort()

describe('contact directory fields', () => {
  it('a source sent is ignored: a GET body can be PUT back, and the record still came by the API', async () => {
    const c = await t.newClient()
    const made = await call(c, 'POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'S', source: 'scim' })
    expect(made.statusCode, made.body).toBe(201)
    expect(made.json().source).toBe('manual')
    const { contactId, ...body } = made.json()
    const put = await call(c, 'PUT', `/api/v1/contacts/${contactId}`, { ...body, source: 'ldap', unit: 'B-2' })
    expect(put.statusCode, put.body).toBe(200)
    expect(put.json()).toMatchObject({ source: 'manual', unit: 'B-2' })
    const wrong = await call(c, 'PUT', `/api/v1/contacts/${contactId}`, { source: 'fax' })
    expect(wrong.statusCode).toBe(400)
    expect(fieldsOf(wrong.json())).toEqual(['source'])
  })

  it('stores aliases, unit, externalId, group and move dates, and says the record came by the API', async () => {
    const c = await t.newClient()
    const res = await call(c, 'POST', '/api/v1/contacts', {
      contactType: 'RECEIVER',
      name: 'Robert Tables',
      aliases: [' Bob ', 'bob', 'Bobby'],
      unit: ' Suite 400 ',
      externalId: '00u1abcd',
      moveInDate: '2026-09-01',
      moveOutDate: '2027-06-30',
    })
    expect(res.statusCode, res.body).toBe(201)
    const body = res.json()
    expect(body).toMatchObject({
      aliases: ['Bob', 'Bobby'],
      unit: 'Suite 400',
      externalId: '00u1abcd',
      source: 'manual',
      group: false,
      moveInDate: '2026-09-01',
      moveOutDate: '2027-06-30',
    })
    expect((await call(c, 'GET', `/api/v1/contacts/${body.contactId}`)).json()).toEqual(body)
  })

  it('a contact made without them has no aliases, is no group, and came by hand', async () => {
    const c = await t.newClient()
    const body = (await call(c, 'POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Ada' })).json()
    expect(body.aliases).toEqual([])
    expect(body.group).toBe(false)
    expect(body.source).toBe('manual')
    for (const absent of ['unit', 'externalId', 'moveInDate', 'moveOutDate']) expect(body).not.toHaveProperty(absent)
  })

  it('PUT replaces aliases, clears with null, and leaves absent fields as they were', async () => {
    const c = await t.newClient()
    const id = (
      await call(c, 'POST', '/api/v1/contacts', {
        contactType: 'RECEIVER',
        name: 'Elizabeth Bennet',
        aliases: ['Liz'],
        unit: 'Room 12',
        externalId: 'E-1',
        group: false,
        moveOutDate: '2027-01-31',
      })
    ).json().contactId
    const put = await call(c, 'PUT', `/api/v1/contacts/${id}`, {
      aliases: ['Lizzy', 'Eliza'],
      unit: null,
      moveOutDate: null,
    })
    expect(put.statusCode, put.body).toBe(200)
    expect(put.json()).toMatchObject({ aliases: ['Lizzy', 'Eliza'], externalId: 'E-1', source: 'manual' })
    expect(put.json()).not.toHaveProperty('unit')
    expect(put.json()).not.toHaveProperty('moveOutDate')
    const group = await call(c, 'PUT', `/api/v1/contacts/${id}`, { group: true, aliases: [] })
    expect(group.json()).toMatchObject({ group: true, aliases: [] })
  })

  it('an externalId is one contact per subscription: a second is 409 naming the field, another subscription may reuse it', async () => {
    const c = await t.newClient()
    const first = await call(c, 'POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'A', externalId: 'X-1' })
    expect(first.statusCode).toBe(201)
    const dup = await call(c, 'POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'B', externalId: 'X-1' })
    expect(dup.statusCode, dup.body).toBe(409)
    expect(dup.json().errors[0]).toMatchObject({ errorCode: 'already_exists', additionalParameters: 'externalId' })
    const listed = (await call(c, 'GET', '/api/v1/contacts?limit=200')).json()
    expect(listed.totalCount).toBe(1)

    const other = (await call(c, 'POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'B' })).json().contactId
    const taken = await call(c, 'PUT', `/api/v1/contacts/${other}`, { externalId: 'X-1' })
    expect(taken.statusCode, taken.body).toBe(409)
    expect((await call(c, 'GET', `/api/v1/contacts/${other}`)).json()).not.toHaveProperty('externalId')

    const d = await t.newClient()
    expect(
      (await call(d, 'POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'A', externalId: 'X-1' })).statusCode,
    ).toBe(201)
  })

  it('refuses bad values with one error per field', async () => {
    const c = await t.newClient()
    const res = await call(c, 'POST', '/api/v1/contacts', {
      contactType: 'RECEIVER',
      name: 'Bad',
      aliases: ['ok', '   ', ...Array.from({ length: 9 }, (_, i) => `a${i}`)],
      unit: 'x'.repeat(101),
      externalId: '',
      moveInDate: '2026-02-30',
      moveOutDate: '31/12/2026',
      group: 'yes',
    })
    expect(res.statusCode).toBe(400)
    expect(fieldsOf(res.json())).toEqual(
      expect.arrayContaining(['aliases', 'unit', 'externalId', 'moveInDate', 'moveOutDate', 'group']),
    )
    expect((await call(c, 'GET', '/api/v1/contacts')).json().totalCount).toBe(0)
  })
})
