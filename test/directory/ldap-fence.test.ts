import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'
import { seedPeople, startSlapd, type Slapd } from './slapd.js'

// Issue 28, review: the LDAP run's lease fences its writes. A run whose lease lapsed (on PGlite its
// renewals can queue behind a long transaction) or was taken over by another run must not write
// over that run: the sync's write transaction checks the lease first, under the row's lock, on
// the database's clock.
const t = useTestApp()
const PEOPLE = 12
let slapd: Slapd

beforeAll(async () => {
  slapd = await startSlapd(seedPeople(PEOPLE))
}, 60_000)
afterAll(async () => slapd?.stop())

async function configured() {
  const c = await t.newClient()
  const a = api(t, c)
  await a.ok('PUT', '/api/v1/directory/ldap', {
    url: slapd.url,
    bindDn: slapd.readerDn,
    bindPassword: slapd.readerPassword,
    baseDn: slapd.peopleDn,
    filter: '(objectClass=inetOrgPerson)',
  })
  const lease = () =>
    t.ctx.db
      .selectFrom('ldap_settings')
      .select(['run_lease', sql<boolean>`run_lease_until > clock_timestamp()`.as('live')])
      .where('sub_id', '=', c.subId)
      .executeTakeFirstOrThrow()
  const setLease = (holder: string | null, until: ReturnType<typeof sql<Date>> | null) =>
    t.ctx.db
      .updateTable('ldap_settings')
      .set({ run_lease: holder, run_lease_until: until })
      .where('sub_id', '=', c.subId)
      .execute()
  const contacts = async () => (await a.ok('GET', '/api/v1/contacts?limit=1')).totalCount as number
  /**
   * A "sync now" held while it reads the directory (slapd stopped), after it claimed its lease;
   * `meanwhile` changes the lease, then the directory answers and the run goes on to write.
   */
  async function runWhile(meanwhile: (holder: string) => Promise<unknown>) {
    slapd.pause()
    try {
      const pending = a.call('POST', '/api/v1/directory/ldap/run', {})
      // As long as the test may take: a loaded machine can be slow to reach the claim, never wrong.
      await expect.poll(async () => (await lease()).run_lease, { timeout: 25_000, interval: 20 }).not.toBeNull()
      await meanwhile((await lease()).run_lease!)
      slapd.resume()
      return await pending
    } finally {
      slapd.resume()
    }
  }
  return { c, a, lease, setLease, contacts, runWhile }
}

describe('LDAP sync: the lease fences the writes', () => {
  it('aborts a run whose lease another run took over: it writes nothing, answers 409 DIR-4091 and is recorded as aborted', async () => {
    const { a, lease, setLease, contacts, runWhile } = await configured()
    const res = await runWhile(() => setLease('another-run', sql<Date>`clock_timestamp() + interval '10 minutes'`))
    expect(res.statusCode, res.body).toBe(409)
    expect(res.json().errors[0]).toMatchObject({
      additionalCode: 'DIR-4091',
      errorDescription: expect.stringMatching(/lost its lease/),
    })
    expect(await contacts()).toBe(0)
    // The run that holds the lease now keeps it; the aborted run is on record (no run recorded since).
    expect(await lease()).toEqual({ run_lease: 'another-run', live: true })
    expect((await a.ok('GET', '/api/v1/directory/ldap')).lastRun).toMatchObject({
      ok: false,
      created: 0,
      error: expect.stringMatching(/^Aborted: this run lost its lease/),
    })

    // The other run ends (its lease given back): the next run writes.
    await setLease(null, null)
    expect(await a.ok('POST', '/api/v1/directory/ldap/run', {}, 200)).toMatchObject({ ok: true, created: PEOPLE })
    expect(await contacts()).toBe(PEOPLE)
  })

  it('aborts a run whose lease lapsed on the database clock, even though no one took it, and gives it back', async () => {
    const { a, lease, setLease, contacts, runWhile } = await configured()
    const res = await runWhile((holder) => setLease(holder, sql<Date>`clock_timestamp() - interval '1 second'`))
    expect(res.statusCode, res.body).toBe(409)
    expect(res.json().errors[0]).toMatchObject({ additionalCode: 'DIR-4091' })
    expect(await contacts()).toBe(0)
    expect(await lease()).toEqual({ run_lease: null, live: null })
    expect((await a.ok('GET', '/api/v1/directory/ldap')).lastRun).toMatchObject({
      ok: false,
      error: expect.stringMatching(/lost its lease/),
    })
  })

  it('does not overwrite the outcome of the run that took over: an aborted run is recorded only if none was since', async () => {
    const { a, c, setLease, contacts, runWhile } = await configured()
    const res = await runWhile(async () => {
      // Another run took the lease, ran and recorded its outcome while this one read the directory.
      await setLease('another-run', sql<Date>`clock_timestamp() + interval '10 minutes'`)
      await t.ctx.db
        .updateTable('ldap_settings')
        .set({
          last_run: JSON.stringify({
            at: new Date().toISOString(),
            runId: 'ldr_other',
            ok: true,
            ...{ seen: 0, created: 0, updated: 0, deactivated: 0, unchanged: 0, invalid: 0, ms: 1 },
          }),
        })
        .where('sub_id', '=', c.subId)
        .execute()
    })
    expect(res.statusCode, res.body).toBe(409)
    expect(await contacts()).toBe(0)
    expect((await a.ok('GET', '/api/v1/directory/ldap')).lastRun).toMatchObject({ runId: 'ldr_other', ok: true })
  })

  it('compares leases with the database clock: a process whose clock runs an hour ahead does not take a held lease', async () => {
    t.clock.advance(60 * 60_000)
    const { setLease, contacts, a } = await configured()
    await setLease('another-process', sql<Date>`clock_timestamp() + interval '10 minutes'`)
    const res = await a.call('POST', '/api/v1/directory/ldap/run', {})
    expect(res.statusCode, res.body).toBe(409)
    expect(res.json().errors[0]).toMatchObject({ additionalCode: 'DIR-4091' })
    expect(await contacts()).toBe(0)
    // Lapsed on the database's clock: taken, whatever the process's clock says.
    await setLease('another-process', sql<Date>`clock_timestamp() - interval '1 second'`)
    expect(await a.ok('POST', '/api/v1/directory/ldap/run', {}, 200)).toMatchObject({ ok: true, created: PEOPLE })
  })
})
