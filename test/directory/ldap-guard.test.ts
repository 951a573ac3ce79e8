import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'
import { seedPeople, startSlapd, type Slapd } from './slapd.js'

const t = useTestApp()
const PEOPLE = 40
let slapd: Slapd

beforeAll(async () => {
  slapd = await startSlapd(seedPeople(PEOPLE))
}, 60_000)
afterAll(async () => slapd?.stop())

const everyone = '(objectClass=inetOrgPerson)'
// p00001 … p00009 left the directory (9 of 40: more than the 5 that 10 % allows).
const withoutNine = '(&(objectClass=inetOrgPerson)(!(uid=p0000*)))'

async function configured(filter = everyone, extra: Record<string, unknown> = {}) {
  const c = await t.newClient()
  const a = api(t, c)
  const put = (f: string, more: Record<string, unknown> = {}) =>
    a.ok('PUT', '/api/v1/directory/ldap', {
      url: slapd.url,
      bindDn: slapd.readerDn,
      bindPassword: slapd.readerPassword,
      baseDn: slapd.peopleDn,
      filter: f,
      ...extra,
      ...more,
    })
  await put(filter)
  const active = async () => (await a.ok('GET', '/api/v1/contacts?status=active&limit=1')).totalCount as number
  return { c, a, put, active }
}

describe('LDAP sync: one run at a time', () => {
  // Whether two concurrent "sync now" overlap depends on the engine (PGlite runs one statement at a
  // time, PostgreSQL may finish the first before the second claims): each is a run or a 409, never
  // two runs at once on one directory. The refusal while a run holds the lease is asserted
  // deterministically by the next test.
  it('answers two concurrent "sync now" with runs or a 409, gives the lease back, and ends consistent', async () => {
    const { c, a, active } = await configured()
    const answers = await Promise.all([
      a.call('POST', '/api/v1/directory/ldap/run', {}),
      a.call('POST', '/api/v1/directory/ldap/run', {}),
    ])
    expect(answers.some((r) => r.statusCode === 200)).toBe(true)
    for (const r of answers) {
      expect([200, 409]).toContain(r.statusCode)
      if (r.statusCode === 409) expect(r.json().errors[0]).toMatchObject({ additionalCode: 'DIR-4091' })
    }
    expect(await active()).toBe(PEOPLE)
    const lease = await t.ctx.db
      .selectFrom('ldap_settings')
      .select('run_lease')
      .where('sub_id', '=', c.subId)
      .executeTakeFirstOrThrow()
    expect(lease.run_lease).toBeNull()
    // The lease was given back: the next run goes ahead.
    expect(await a.ok('POST', '/api/v1/directory/ldap/run', {}, 200)).toMatchObject({ ok: true, unchanged: PEOPLE })
  })

  it('does not start while another process holds the lease (neither "sync now" nor the schedule), and takes a lapsed one', async () => {
    const { c, a } = await configured()
    const now = t.ctx.clock.now().getTime()
    // Leases are compared with the database's clock (ldap-fence.test.ts), not the test's.
    const hold = (until: ReturnType<typeof sql<Date>>) =>
      t.ctx.db
        .updateTable('ldap_settings')
        .set({ run_lease: 'another-process', run_lease_until: until, next_run_at: new Date(now - 1000) })
        .where('sub_id', '=', c.subId)
        .execute()
    await hold(sql<Date>`clock_timestamp() + interval '10 minutes'`)
    const res = await a.call('POST', '/api/v1/directory/ldap/run', {})
    expect(res.statusCode).toBe(409)
    expect(res.json().errors[0]).toMatchObject({ additionalCode: 'DIR-4091' })
    await t.ctx.directory.ldap.periodicTask().run(new AbortController().signal)
    expect((await a.ok('GET', '/api/v1/directory/ldap')).lastRun).toBeUndefined()
    expect((await a.ok('GET', '/api/v1/contacts?limit=1')).totalCount).toBe(0)

    // The holder died: its lease lapsed, and the schedule takes the run.
    await hold(sql<Date>`clock_timestamp() - interval '1 second'`)
    await t.ctx.directory.ldap.periodicTask().run(new AbortController().signal)
    expect((await a.ok('GET', '/api/v1/directory/ldap')).lastRun).toMatchObject({ ok: true, created: PEOPLE })
    const row = await t.ctx.db
      .selectFrom('ldap_settings')
      .select(['run_lease', 'run_lease_until'])
      .where('sub_id', '=', c.subId)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ run_lease: null, run_lease_until: null })
  })
})

describe('LDAP sync: mass deactivation', () => {
  it('refuses a run that would deactivate more than the bound, writes nothing, and runs once confirmed', async () => {
    const { a, put, active } = await configured()
    await a.ok('POST', '/api/v1/directory/ldap/run', {}, 200)
    expect(await active()).toBe(PEOPLE)

    await put(withoutNine)
    const refused = await a.ok('POST', '/api/v1/directory/ldap/run', {}, 200)
    expect(refused).toMatchObject({
      ok: false,
      deactivated: 9,
      refused: { reason: 'too_many', deactivations: 9, allowed: 5 },
      error: expect.stringMatching(/would deactivate 9 contacts/),
      runId: expect.any(String),
    })
    expect(await active()).toBe(PEOPLE)
    const settings = await a.ok('GET', '/api/v1/directory/ldap')
    expect(settings.lastRun).toMatchObject({ refused: { reason: 'too_many' }, runId: refused.runId })
    expect(settings.maxDeactivationPercent).toBe(10)

    // A confirmation names the refused run: another id is refused, and it changes nothing.
    const stale = await a.call('POST', '/api/v1/directory/ldap/run', { confirmRunId: 'ldr_other' })
    expect(stale.statusCode).toBe(409)
    expect(stale.json().errors[0]).toMatchObject({ additionalCode: 'DIR-4092', additionalParameters: 'confirmRunId' })
    const confirmed = await a.ok('POST', '/api/v1/directory/ldap/run', { confirmRunId: refused.runId }, 200)
    expect(confirmed).toMatchObject({ ok: true, deactivated: 9 })
    expect(confirmed.refused).toBeUndefined()
    expect(await active()).toBe(PEOPLE - 9)
    // Once: the confirmed run is no longer the last run.
    expect((await a.call('POST', '/api/v1/directory/ldap/run', { confirmRunId: refused.runId })).statusCode).toBe(409)
  })

  it('refuses a search that finds nobody, even with a large bound; a wider bound lets ordinary leavers go', async () => {
    const { c, a, put, active } = await configured(everyone, { maxDeactivationPercent: 50 })
    await a.ok('POST', '/api/v1/directory/ldap/run', {}, 200)
    await put('(uid=nobody-at-all)')
    const dry = await a.ok('POST', '/api/v1/directory/ldap/run', { dryRun: true }, 200)
    expect(dry).toMatchObject({ ok: false, seen: 0, refused: { reason: 'empty_search', deactivations: PEOPLE } })
    const empty = await a.ok('POST', '/api/v1/directory/ldap/run', {}, 200)
    expect(empty).toMatchObject({
      ok: false,
      seen: 0,
      refused: { reason: 'empty_search', deactivations: PEOPLE },
      runId: expect.any(String),
    })
    // The schedule refuses it the same way, in a run of its own.
    await t.ctx.db
      .updateTable('ldap_settings')
      .set({ next_run_at: new Date(0) })
      .where('sub_id', '=', c.subId)
      .execute()
    await t.ctx.directory.ldap.periodicTask().run(new AbortController().signal)
    const scheduled = (await a.ok('GET', '/api/v1/directory/ldap')).lastRun
    expect(scheduled).toMatchObject({ refused: { reason: 'empty_search', deactivations: PEOPLE } })
    expect(scheduled.runId).not.toBe(empty.runId)
    expect(await active()).toBe(PEOPLE)

    // 9 of 40 is within 50 %: no confirmation needed.
    await put(withoutNine)
    expect(await a.ok('POST', '/api/v1/directory/ldap/run', {}, 200)).toMatchObject({ ok: true, deactivated: 9 })
    expect(await active()).toBe(PEOPLE - 9)
    const bad = await a.call('PUT', '/api/v1/directory/ldap', {
      url: slapd.url,
      bindDn: slapd.readerDn,
      baseDn: slapd.peopleDn,
      maxDeactivationPercent: 51,
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().errors[0].additionalParameters).toMatch(/maxDeactivationPercent/)
  })
})
