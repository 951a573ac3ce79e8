import { beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { runHousekeeping } from '../../src/app/housekeeping.js'
import { createUser, signIn, type SignedIn } from '../support/console-session.js'
import type { TestClient } from '../support/build-test-app.js'
import { api, trackingNumber } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'
import { countWrites } from '../support/write-counter.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Issue 26.7: a read costs the database nothing but the read, whoever reads (an API client or a
 * console user) and however long the load. The rate limiter keeps a subscription's counts in the
 * process until they could matter (local-windows.ts), the console session slides its idle window
 * at most once per 5 minutes, and ended sessions are swept by housekeeping, not by a read.
 */
describe('a read-only load', () => {
  // The shared windows even on PGlite, synced often: a write would show within the test.
  const t = useTestApp({
    RATE_LIMIT_STORE: 'database',
    RATE_LIMIT_SYNC_MS: '20',
    RATE_LIMIT_MAX: '12000',
    RATE_LIMIT_PROCESSES: '4',
    CONSOLE_SESSION_IDLE_MINUTES: '30',
    CONSOLE_SESSION_MAX_HOURS: '12',
  })
  let reader: TestClient
  let clerk: SignedIn
  let reads: string[] = []
  beforeAll(async () => {
    reader = await t.newClient()
    const a = api(t, reader)
    const tn = trackingNumber('RWN')
    const contactId = await a.contact('RECEIVER', 'Reader Two')
    const { packageId } = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: tn, receiver: { contactId } },
      lastActivity: { status: 'RECEIVED' },
    })
    await createUser(t, reader, { email: 'reads-clerk@example.com', role: 'clerk' })
    clerk = await signIn(t, 'reads-clerk@example.com')
    reads = [
      '/api/v1/session',
      `/api/v1/packages/${packageId}?type=DETAILED`,
      `/api/v1/packages/${packageId}?type=ACTIVITIES`,
      `/api/v1/packages/tracking/${tn}`,
      `/api/v1/packages/tracking/decode?trackingNumber=${tn}`,
      `/api/v1/packages?search=trackingNumber:${tn}`,
      `/api/v1/contacts/${contactId}`,
      '/api/v1/contacts',
      '/api/v1/inboundsites',
      '/console/api/session',
    ]
  })

  it('answers 2,000 GETs of every kind, by token and by console session, without writing a row (rate_limit_windows and user_sessions included)', async () => {
    const writes = await countWrites(t.ctx.db)
    for (let i = 0; i < 2000; i++) {
      const url = reads[i % reads.length]!
      // Every other round by the console user's cookie, as the browser console reads.
      const byCookie = url.startsWith('/console/') || Math.floor(i / reads.length) % 2 === 1
      const res = await t.inject({ url, ...(byCookie ? { cookies: clerk.cookies } : { headers: reader.auth }) })
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
      // Ten seconds go by every 100 requests: 200 s in all, less than the session's touch interval.
      if (i % 100 === 99) t.clock.advance(10_000)
    }
    // Several sync intervals: any count the limiter would report has been.
    await sleep(200)
    expect(await writes.perTable()).toEqual({})
  }, 180_000)

  it('refuses a session that ended without deleting it on the read, and housekeeping sweeps it once past its end', async () => {
    await createUser(t, reader, { email: 'ended-clerk@example.com', role: 'clerk' })
    const ended = await signIn(t, 'ended-clerk@example.com')
    const writes = await countWrites(t.ctx.db)
    await writes.reset()
    t.clock.advance(31 * 60_000)
    const res = await t.inject({ url: '/api/v1/session', cookies: ended.cookies })
    expect(res.statusCode).toBe(401)
    expect(await writes.perTable()).toEqual({})
    const left = async () =>
      Number(
        (
          await sql<{
            n: number
          }>`select count(*)::int as n from user_sessions where user_id = ${ended.user.userId}`.execute(t.ctx.db)
        ).rows[0]!.n,
      )
    expect(await left()).toBe(1)
    t.clock.advance(12 * 3_600_000)
    const done = await runHousekeeping({ db: t.ctx.db, clock: t.clock, images: t.ctx.receiving.images })
    expect(done.sessions).toBeGreaterThanOrEqual(1)
    expect(await left()).toBe(0)
  })

  it('still slides a session read after read: its idle window is written at most once per 5 minutes', async () => {
    // The clock passed the token's expiry in the test before.
    reader = await t.refresh(reader)
    await createUser(t, reader, { email: 'slide-clerk@example.com', role: 'clerk' })
    const s = await signIn(t, 'slide-clerk@example.com')
    const writes = await countWrites(t.ctx.db)
    await writes.reset()
    // A read every minute for an hour: past the 30-minute idle window, alive all along.
    for (let minute = 1; minute <= 60; minute++) {
      t.clock.advance(60_000)
      expect((await t.inject({ url: '/console/api/session', cookies: s.cookies })).statusCode).toBe(200)
    }
    expect((await writes.perTable()).user_sessions).toBe(12)
  })
})

describe('a subscription whose requests could matter', () => {
  // Limit 40 over at most 4 processes: each reports a subscription from 10 requests in its window.
  const syncMs = 20
  const t = useTestApp({
    RATE_LIMIT_STORE: 'database',
    RATE_LIMIT_MAX: '40',
    RATE_LIMIT_PROCESSES: '4',
    RATE_LIMIT_SYNC_MS: String(syncMs),
  })
  let other: FastifyInstance
  beforeAll(async () => {
    other = await t.secondProcess()
  })
  const get = (app: FastifyInstance, c: TestClient) => app.inject({ url: '/api/v1/contacts', headers: c.auth })

  it('is reported once a process counted its share of the limit, and the limit holds across processes within the bound', async () => {
    const c = await t.newClient()
    const writes = await countWrites(t.ctx.db)
    await writes.reset()
    // Nine requests to each process: below each one's threshold, nothing written.
    for (let i = 0; i < 9; i++) for (const app of [t.app, other]) expect((await get(app, c)).statusCode).toBe(200)
    await sleep(10 * syncMs)
    expect(await writes.perTable()).toEqual({})
    // The tenth reaches it: both report, and each learns the other's count.
    for (const app of [t.app, other]) expect((await get(app, c)).statusCode).toBe(200)
    await sleep(10 * syncMs)
    expect((await writes.perTable()).rate_limit_windows).toBeGreaterThanOrEqual(2)
    const remaining = Number((await get(t.app, c)).headers['ratelimit-remaining'])
    expect(remaining).toBe(40 - 21)
    // The rest of the limit, then refusals from both processes.
    let admitted = 21
    for (let round = 0; round < 15; round++) {
      for (const app of [t.app, other]) if ((await get(app, c)).statusCode === 200) admitted++
      await sleep(3 * syncMs)
    }
    expect(admitted).toBeGreaterThanOrEqual(40)
    // Past the threshold both report every interval: the overshoot is at most a request per process.
    expect(admitted).toBeLessThanOrEqual(42)
    expect((await get(t.app, c)).statusCode).toBe(429)
    expect((await get(other, c)).statusCode).toBe(429)
  })
})
