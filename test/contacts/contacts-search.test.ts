import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp, useClient } from '../support/use-test-app.js'

const t = useTestApp()
const c = useClient(t)
const ids: Record<string, string> = {}

const list = async (qs: string) => {
  const res = await t.inject({ method: 'GET', url: `/api/v1/contacts${qs}`, headers: c.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ contacts: Array<{ contactId: string; name: string }>; totalCount: number }>()
}
const names = async (qs: string) => (await list(qs)).contacts.map((x) => x.name)

beforeAll(async () => {
  const people: Array<[string, string, Record<string, unknown>]> = [
    ['ada', 'RECEIVER', { name: 'Ada Lovelace', email: 'countess@example.com' }],
    ['adam', 'SENDER', { name: 'adam smith', email: 'wealth@example.com' }],
    ['bob', 'ALL', { name: 'Bob Ada', email: 'ADA.bob@example.com' }],
    ['carol', 'RECEIVER', { name: 'Carol', personalId: 'ADA-77', status: 'inactive' }],
    ['pct', 'ALL', { name: 'Percy', personalId: '%P-1' }],
    ['under', 'SENDER', { name: 'Abe Corp', personalId: 'A_B' }],
    ['dave', 'RECEIVER', { name: 'Dave' }],
  ]
  for (const [key, contactType, extra] of people) {
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/contacts',
      payload: { contactType, ...extra },
      headers: c.auth,
    })
    expect(res.statusCode, res.body).toBe(201)
    ids[key] = res.json().contactId
  }
})

describe('contact typeahead and filters', () => {
  it('matches a case-insensitive prefix of name, email or personalId', async () => {
    expect(await names('?query=ada')).toEqual(['Ada Lovelace', 'adam smith', 'Bob Ada', 'Carol'])
    expect(await names('?query=ADA%20L')).toEqual(['Ada Lovelace'])
    expect(await names('?query=count')).toEqual(['Ada Lovelace'])
    expect(await names('?query=ada-7')).toEqual(['Carol'])
    // Prefix only: "Lovelace" is inside a name, not at its start.
    expect(await names('?query=lovelace')).toEqual([])
    expect(await names('?query=%20%20')).toHaveLength(7)
  })

  it('treats LIKE wildcards in the query literally', async () => {
    expect(await names('?query=%25')).toEqual(['Percy'])
    expect(await names('?query=a_')).toEqual(['Abe Corp'])
    expect(await names('?query=_')).toEqual([])
    expect(await names('?query=%5C')).toEqual([])
  })

  it('filters by contactType: ALL contacts serve as senders and receivers', async () => {
    expect(await names('?contactType=SENDER')).toEqual(['Abe Corp', 'adam smith', 'Bob Ada', 'Percy'])
    expect(await names('?contactType=RECEIVER')).toEqual(['Ada Lovelace', 'Bob Ada', 'Carol', 'Dave', 'Percy'])
    expect(await names('?contactType=ALL')).toEqual(['Bob Ada', 'Percy'])
    expect(await names('?contactType=RECEIVER&query=ada')).toEqual(['Ada Lovelace', 'Bob Ada', 'Carol'])
    expect(await names('?contactType=RECEIVER&status=active&query=ada')).toEqual(['Ada Lovelace', 'Bob Ada'])
    expect(await names('?status=inactive')).toEqual(['Carol'])
  })

  it('pages with skip and limit and counts every match', async () => {
    expect(await list('?limit=2')).toMatchObject({
      totalCount: 7,
      contacts: [{ name: 'Abe Corp' }, { name: 'Ada Lovelace' }],
    })
    expect(await list('?skip=2&limit=2')).toMatchObject({
      totalCount: 7,
      contacts: [{ name: 'adam smith' }, { name: 'Bob Ada' }],
    })
    expect(await list('?skip=7')).toEqual({ contacts: [], totalCount: 7 })
    expect((await list('')).contacts).toHaveLength(7)
  })

  it('refuses bad list parameters', async () => {
    for (const [qs, field] of [
      ['?limit=201', 'limit'],
      ['?limit=0', 'limit'],
      ['?limit=ten', 'limit'],
      ['?skip=-1', 'skip'],
      ['?contactType=BOTH', 'contactType'],
      ['?status=deleted', 'status'],
      [`?query=${'x'.repeat(101)}`, 'query'],
    ] as const) {
      const res = await t.inject({ method: 'GET', url: `/api/v1/contacts${qs}`, headers: c.auth })
      expect(res.statusCode, qs).toBe(400)
      expect(
        res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters),
        qs,
      ).toEqual([field])
    }
  })
})

describe('findMatches (decode links a ship-to name to a contact)', () => {
  it('matches the normalised name of active RECEIVER and ALL contacts, and narrows by company when it can', async () => {
    const m = await t.newClient()
    const make = async (contactType: string, name: string, extra: Record<string, unknown> = {}) => {
      const res = await t.inject({
        method: 'POST',
        url: '/api/v1/contacts',
        payload: { contactType, name, ...extra },
        headers: m.auth,
      })
      return res.json().contactId as string
    }
    const jose = await make('RECEIVER', 'José  O’Brien-Smith', { company: 'Acme, Inc.' })
    const twin = await make('ALL', 'jose o brien smith', { company: 'Globex' })
    await make('SENDER', 'Jose OBrien Smith')
    await make('RECEIVER', 'José O’Brien-Smith', { status: 'inactive' })
    const gone = await make('RECEIVER', 'JOSE O BRIEN SMITH')
    await t.inject({ method: 'DELETE', url: `/api/v1/contacts/${gone}`, headers: m.auth })

    const find = (name: string, company?: string) =>
      t.ctx.companions.contacts.findMatches(m.subId, name, company).then((r) => r.map((x) => x.contactId).sort())
    expect(await find('JOSE O BRIEN-SMITH')).toEqual([jose, twin].sort())
    expect(await find('JOSE O BRIEN SMITH', 'ACME INC')).toEqual([jose])
    expect(await find('jose o brien smith', 'Initech')).toEqual([jose, twin].sort())
    expect(await find('JOSE OBRIEN SMITH')).toEqual([])
    expect(await find(' ,. ')).toEqual([])
    const [record] = await t.ctx.companions.contacts.findMatches(m.subId, 'jose o brien smith', 'acme inc')
    expect(record).toEqual({
      contactId: jose,
      contactType: 'RECEIVER',
      name: 'José  O’Brien-Smith',
      company: 'Acme, Inc.',
      notify: true,
      status: 'active',
      aliases: [],
      source: 'manual',
      group: false,
      deleted: false,
    })
  })
})
