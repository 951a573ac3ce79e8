import { Attribute, Change, Client } from 'ldapts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'
import { countWrites } from '../support/write-counter.js'
import { seedPeople, SIZE_LIMIT, startSlapd, type Slapd } from './slapd.js'

const t = useTestApp()
const PEOPLE = 3000
let slapd: Slapd

beforeAll(async () => {
  slapd = await startSlapd(seedPeople(PEOPLE))
}, 60_000)
afterAll(async () => slapd?.stop())

async function asAdmin<T>(work: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ url: slapd.url })
  try {
    await c.bind(slapd.adminDn, slapd.adminPassword)
    return await work(c)
  } finally {
    await c.unbind()
  }
}

describe('LDAP pull against a real slapd', () => {
  it('the seeded directory is larger than one answer: only a paged search reads it all', async () => {
    const c = new Client({ url: slapd.url })
    await c.bind(slapd.readerDn, slapd.readerPassword)
    // LDAP result code 4: sizeLimitExceeded (RFC 4511 §4.1.9).
    await expect(
      c.search(slapd.peopleDn, { scope: 'sub', filter: '(objectClass=inetOrgPerson)' }),
    ).rejects.toMatchObject({
      code: 4,
    })
    expect(PEOPLE).toBeGreaterThan(SIZE_LIMIT)
    await c.unbind()
  })

  it('syncs thousands of people, writes nothing when nothing changed, and follows changes', async () => {
    const c = await t.newClient()
    const a = api(t, c)
    const settings = await a.ok('PUT', '/api/v1/directory/ldap', {
      url: slapd.url,
      bindDn: slapd.readerDn,
      bindPassword: slapd.readerPassword,
      baseDn: slapd.peopleDn,
      filter: '(objectClass=inetOrgPerson)',
      intervalMinutes: 60,
    })
    expect(settings).toMatchObject({
      enabled: true,
      bindPassword: '********',
      mapping: { externalId: 'entryUUID', unit: 'roomNumber' },
    })
    const sealed = await t.ctx.db
      .selectFrom('ldap_settings')
      .select('bind_password_sealed')
      .where('sub_id', '=', c.subId)
      .executeTakeFirstOrThrow()
    expect(sealed.bind_password_sealed).not.toContain(slapd.readerPassword)

    // A dry run says what would happen and writes no contact.
    const dry = await a.ok('POST', '/api/v1/directory/ldap/run', { dryRun: true }, 200)
    expect(dry).toMatchObject({ ok: true, seen: PEOPLE, created: PEOPLE, updated: 0, deactivated: 0, invalid: 0 })
    expect((await a.ok('GET', '/api/v1/contacts?limit=1')).totalCount).toBe(0)

    const first = await a.ok('POST', '/api/v1/directory/ldap/run', {}, 200)
    expect(first).toMatchObject({ ok: true, seen: PEOPLE, created: PEOPLE, updated: 0, unchanged: 0, deactivated: 0 })
    const list = await a.ok('GET', '/api/v1/contacts?query=p00042@&limit=5')
    expect(list.contacts).toEqual([
      expect.objectContaining({
        name: 'Person 00042',
        email: 'p00042@example.org',
        phone: '+1 555 00042',
        personalId: 'E00042',
        unit: 'R-00042',
        company: 'Example Corp',
        source: 'ldap',
        status: 'active',
        externalId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      }),
    ])

    // Unchanged: not one contact row written (the run's lease, taken then given back with its outcome, is the only write).
    const writes = await countWrites(t.ctx.db)
    const second = await a.ok('POST', '/api/v1/directory/ldap/run', {}, 200)
    expect(second).toMatchObject({ created: 0, updated: 0, deactivated: 0, unchanged: PEOPLE })
    expect(await writes.perTable()).toEqual({ ldap_settings: 2 })

    // Changes in the directory: one edited, one removed, one added.
    await asAdmin(async (ldap) => {
      await ldap.modify(`uid=p00010,${slapd.peopleDn}`, [
        new Change({ operation: 'replace', modification: new Attribute({ type: 'roomNumber', values: ['R-MOVED'] }) }),
      ])
      await ldap.del(`uid=p00020,${slapd.peopleDn}`)
      await ldap.add(`uid=p09999,${slapd.peopleDn}`, {
        objectClass: 'inetOrgPerson',
        uid: 'p09999',
        cn: 'New Hire',
        givenName: 'New',
        sn: 'Hire',
        mail: 'new.hire@example.org',
      })
    })
    await writes.reset()
    const third = await a.ok('POST', '/api/v1/directory/ldap/run', {}, 200)
    expect(third).toMatchObject({ seen: PEOPLE, created: 1, updated: 1, deactivated: 1, unchanged: PEOPLE - 2 })
    // The three changes, and the leaver's departure noted (test/directory/departures.test.ts).
    expect((await writes.perTable()).contacts).toBe(4)
    expect((await a.ok('GET', '/api/v1/contacts?query=p00010@')).contacts[0]).toMatchObject({ unit: 'R-MOVED' })
    expect((await a.ok('GET', '/api/v1/contacts?query=p00020@')).contacts[0]).toMatchObject({ status: 'inactive' })
    expect((await a.ok('GET', '/api/v1/contacts?query=new.hire@')).contacts[0]).toMatchObject({ name: 'New Hire' })
    // The leaver comes back: reactivated, same contact.
    await asAdmin((ldap) => ldap.add(`uid=p00020,${slapd.peopleDn}`, personLdifAttrs(seedPeople(1, 20)[0]!)))
    const fourth = await a.ok('POST', '/api/v1/directory/ldap/run', {}, 200)
    // A re-added entry has a new entryUUID: it is matched by its email to the contact that left.
    expect(fourth).toMatchObject({ created: 0, updated: 1, deactivated: 0 })
    expect((await a.ok('GET', '/api/v1/contacts?query=p00020@')).contacts).toEqual([
      expect.objectContaining({ status: 'active' }),
    ])
    expect((await a.ok('GET', '/api/v1/directory/ldap')).lastRun).toMatchObject({ ok: true, updated: 1 })
  }, 120_000)

  it('reports a directory it cannot bind to, and keeps the password when the mask is sent back', async () => {
    const c = await t.newClient()
    const a = api(t, c)
    const body = {
      url: slapd.url,
      bindDn: slapd.readerDn,
      bindPassword: 'wrong',
      baseDn: slapd.peopleDn,
    }
    await a.ok('PUT', '/api/v1/directory/ldap', body, 200)
    const res = await a.call('POST', '/api/v1/directory/ldap/run', {})
    expect(res.statusCode).toBe(409)
    expect(res.json().errors[0].errorDescription).toMatch(/could not be read/)
    expect((await a.ok('GET', '/api/v1/directory/ldap')).lastRun).toMatchObject({
      ok: false,
      error: expect.any(String),
    })
    await a.ok('PUT', '/api/v1/directory/ldap', { ...body, bindPassword: slapd.readerPassword }, 200)
    await a.ok('PUT', '/api/v1/directory/ldap', { ...body, bindPassword: '********', filter: '(uid=p0000*)' }, 200)
    expect(await a.ok('POST', '/api/v1/directory/ldap/run', { dryRun: true }, 200)).toMatchObject({ ok: true, seen: 9 })
    const first = await a.call('PUT', '/api/v1/directory/ldap', { ...body, bindPassword: undefined })
    expect(first.statusCode).toBe(200)
    const none = await api(t, await t.newClient()).call('PUT', '/api/v1/directory/ldap', {
      ...body,
      bindPassword: undefined,
    })
    expect(none.statusCode).toBe(400)
    expect(none.json().errors[0].additionalParameters).toBe('bindPassword')
  })
})

function personLdifAttrs(p: ReturnType<typeof seedPeople>[number]): Record<string, string> {
  const { uid, cn, givenName, sn, mail, telephoneNumber, employeeNumber, roomNumber, o } = p
  return {
    objectClass: 'inetOrgPerson',
    uid,
    cn,
    givenName,
    sn,
    mail: mail!,
    telephoneNumber: telephoneNumber!,
    employeeNumber: employeeNumber!,
    roomNumber: roomNumber!,
    o: o!,
  }
}
