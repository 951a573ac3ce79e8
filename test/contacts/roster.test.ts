import type { LightMyRequestResponse } from 'fastify'
import { describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()

const call = (c: TestClient, method: 'GET' | 'POST', url: string, payload?: unknown) =>
  t.inject({ method, url, payload: payload as never, headers: c.auth })
const fields = (res: LightMyRequestResponse) =>
  res
    .json()
    .errors.map((e: { additionalParameters?: string }) => e.additionalParameters)
    .sort()

async function readCsv(c: TestClient, csv: string) {
  const res = await call(c, 'POST', '/api/v1/contacts/import/csv', { csv })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}
async function importRows(c: TestClient, rows: unknown[], dryRun?: boolean) {
  const res = await call(c, 'POST', '/api/v1/contacts/import', { rows, ...(dryRun ? { dryRun } : {}) })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}
async function all(c: TestClient) {
  const res = await call(c, 'GET', '/api/v1/contacts?limit=200')
  return res.json().contacts as Array<Record<string, unknown>>
}
const updatedAt = async (subId: string) =>
  t.ctx.db
    .selectFrom('contacts')
    .select(['contact_id', 'updated_at'])
    .where('sub_id', '=', subId)
    .orderBy('contact_id')
    .execute()

const ROSTER = [
  'Full Name;E-mail Address;Student ID;Dept;Locker;Mobile',
  'Ada Lovelace;ada@example.com;S-1;Maths;101;+44 1',
  '"Grace ""Amazing"" Hopper";grace@example.com;S-2;Navy;102;',
  'Alan Turing;;S-3;;103;',
].join('\r\n')

describe('roster import (upsert)', () => {
  it('reads ; separated files with synonym headers, warns of unknown columns, and writes nothing', async () => {
    const c = await t.newClient()
    const read = await readCsv(c, `\uFEFF${ROSTER}\r\n`)
    expect(read.delimiter).toBe(';')
    expect(read.columns.map((x: { field: string | null }) => x.field)).toEqual([
      'name',
      'email',
      'personalId',
      'company',
      null,
      'phone',
    ])
    expect(read.warnings).toEqual(['Column "Locker" is not a contact field: ignored.'])
    expect(read.rows.map((r: { row: unknown }) => r.row)).toEqual([
      { name: 'Ada Lovelace', email: 'ada@example.com', personalId: 'S-1', company: 'Maths', phone: '+44 1' },
      { name: 'Grace "Amazing" Hopper', email: 'grace@example.com', personalId: 'S-2', company: 'Navy' },
      { name: 'Alan Turing', personalId: 'S-3' },
    ])
    expect(read.report).toMatchObject({ created: 3, updated: 0, unchanged: 0, invalid: 0 })
    expect(await all(c)).toEqual([])
  })

  it('reads tab and comma separated files, and first + last name columns', async () => {
    const c = await t.newClient()
    const tab = await readCsv(c, 'First name\tLAST NAME\temail\nAda\tLovelace\tada@example.com\n')
    expect(tab.delimiter).toBe('\t')
    expect(tab.rows[0].row).toEqual({ name: 'Ada Lovelace', email: 'ada@example.com' })
    const comma = await readCsv(c, 'name,email,type\n"Lovelace, Ada",ada@example.com,sender\n')
    expect(comma.rows[0].row).toEqual({ name: 'Lovelace, Ada', email: 'ada@example.com', contactType: 'sender' })
    const bad = await call(c, 'POST', '/api/v1/contacts/import/csv', { csv: 'name,email\n"Ada,ada@example.com\n' })
    expect(bad.statusCode).toBe(400)
    expect(fields(bad)).toEqual(['csv'])
  })

  it('imports, then a second import of the same file changes nothing; a changed row updates its contact', async () => {
    const c = await t.newClient()
    const rows = (await readCsv(c, ROSTER)).rows.map((r: { row: unknown }) => r.row)
    const first = await importRows(c, rows)
    expect(first).toMatchObject({ created: 3, updated: 0, unchanged: 0, invalid: 0 })
    const contacts = await all(c)
    expect(contacts.map((x) => x.name).sort()).toEqual(['Ada Lovelace', 'Alan Turing', 'Grace "Amazing" Hopper'])
    expect(contacts.find((x) => x.name === 'Ada Lovelace')).toMatchObject({
      contactType: 'RECEIVER',
      email: 'ada@example.com',
      personalId: 'S-1',
      company: 'Maths',
      phone: '+44 1',
      status: 'active',
      notify: true,
    })
    const stamps = await updatedAt(c.subId)
    t.clock.advance(60_000)
    const second = await importRows(c, rows)
    expect(second).toMatchObject({ created: 0, updated: 0, unchanged: 3, invalid: 0 })
    expect(await all(c)).toEqual(contacts)
    expect(await updatedAt(c.subId)).toEqual(stamps)

    // Matched by the external id (a new email) and by the email (upper case, no id): updates.
    const third = await importRows(c, [
      { name: 'Ada Lovelace', email: 'countess@example.com', personalId: 's-1' },
      { name: 'Grace Hopper', email: 'GRACE@example.com' },
    ])
    expect(third).toMatchObject({ created: 0, updated: 2, unchanged: 0 })
    expect(third.rows[0].changes).toEqual(['email'])
    const after = await all(c)
    expect(after).toHaveLength(3)
    expect(after.find((x) => x.personalId === 'S-1')?.email).toBe('countess@example.com')
    expect(after.find((x) => x.personalId === 'S-2')).toMatchObject({
      name: 'Grace Hopper',
      email: 'GRACE@example.com',
    })
  })

  it('checks every row in a dry run, and refuses the whole import with errors naming rows[i].field', async () => {
    const c = await t.newClient()
    await importRows(c, [
      { name: 'Ada', email: 'ada@example.com', personalId: 'A' },
      { name: 'Bob', email: 'bob@example.com', personalId: 'B' },
    ])
    const rows = [
      { name: 'New Person', email: 'new@example.com' },
      { name: '', email: 'Bob <bob@example.com>' },
      { name: 'Ada', personalId: 'A', email: 'bob@example.com' },
      { name: 'Twin', email: 'new@example.com' },
      { name: 'X', contactType: 'boss', language: 'French' },
    ]
    const dry = await importRows(c, rows, true)
    expect(dry).toMatchObject({ created: 1, invalid: 4 })
    expect(dry.rows.map((r: { errors: Array<{ field: string }> }) => r.errors.map((e) => e.field))).toEqual([
      [],
      ['name', 'email'],
      ['email'],
      ['email'],
      ['contactType', 'language'],
    ])
    const res = await call(c, 'POST', '/api/v1/contacts/import', { rows })
    expect(res.statusCode).toBe(400)
    expect(fields(res)).toEqual([
      'rows[1].email',
      'rows[1].name',
      'rows[2].email',
      'rows[3].email',
      'rows[4].contactType',
      'rows[4].language',
    ])
    expect((await all(c)).map((x) => x.name)).toEqual(['Ada', 'Bob'])
    const schema = await call(c, 'POST', '/api/v1/contacts/import', { rows: [{ name: 'x', room: '1' }] })
    expect(schema.statusCode).toBe(400)
  })

  it('exports every contact as CSV that re-imports unchanged, formulas guarded', async () => {
    const c = await t.newClient()
    await importRows(c, [
      { name: '=HYPERLINK("x")', email: 'f@example.com', contactType: 'SENDER' },
      { name: 'Line, "Quoted"', company: 'Two\nLines', language: 'fr' },
    ])
    const res = await call(c, 'GET', '/api/v1/contacts/export')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(res.headers['content-disposition']).toBe('attachment; filename="contacts.csv"')
    const lines = res.body.split('\r\n')
    expect(lines[0]).toBe('name,email,company,phone,personalId,contactType,language,externalId,unit,status')
    expect(res.body).toContain(`"'=HYPERLINK(""x"")",f@example.com,,,,SENDER,`)
    const again = await readCsv(c, res.body)
    expect(again.report).toMatchObject({ created: 0, updated: 0, unchanged: 2, invalid: 0 })
  })

  it('keeps rosters to their subscription, and an admin-only import', async () => {
    const a = await t.newClient()
    const b = await t.newClient()
    await importRows(a, [{ name: 'Ada', email: 'ada@example.com' }])
    const other = await importRows(b, [{ name: 'Ada', email: 'ada@example.com' }], true)
    expect(other).toMatchObject({ created: 1, unchanged: 0 })
    const exp = await call(b, 'GET', '/api/v1/contacts/export')
    expect(exp.body).toBe('name,email,company,phone,personalId,contactType,language,externalId,unit,status\r\n')
  })
})
