import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app/app.js'
import { loadConfig } from '../../src/app/config.js'
import { createContext, type AppContext } from '../../src/app/context.js'
import type { DatabaseHandle } from '../../src/platform/db/database.js'
import { inTransaction } from '../../src/platform/db/transaction.js'
import { ManualClock } from '../../src/platform/kit/clock.js'
import { pgInvalidations } from '../../src/platform/cache/invalidations.js'
import { SubscriptionCache } from '../../src/platform/cache/subscription-cache.js'
import { TEST_SECRET } from '../support/build-test-app.js'
import { createTestDatabase } from '../support/test-db.js'

describe('SubscriptionCache.drop', () => {
  it('drops one subscription, or (undefined) everything, and never stores a load that started before', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00Z')
    const cache = new SubscriptionCache<string>(clock, 60_000)
    await cache.get('a', async () => 'a1')
    await cache.get('b', async () => 'b1')
    cache.drop('a')
    expect([cache.peek('a'), cache.peek('b')]).toEqual([undefined, 'b1'])
    let finish!: (v: string) => void
    const loading = cache.get('a', () => new Promise<string>((r) => (finish = r)))
    cache.drop(undefined)
    finish('a-stale')
    expect(await loading).toBe('a-stale')
    expect([cache.peek('a'), cache.peek('b')]).toEqual([undefined, undefined])
    await cache.get('a', async () => 'a2')
    expect(cache.peek('a')).toBe('a2')
  })
})

// Two processes of one deployment, in this one: each its own services, caches and LISTEN
// connection, one PostgreSQL database. Cache lifetimes far above the checks' budgets, on a clock that stands still.
const pgUrl = process.env.TEST_DATABASE_URL
describe.skipIf(!pgUrl)('invalidation across processes (PostgreSQL LISTEN/NOTIFY)', () => {
  let db: { handle: DatabaseHandle; url?: string; drop(): Promise<void> }
  let dataDir: string
  const clock = new ManualClock(new Date())
  const nodes: Array<{ ctx: AppContext; app: FastifyInstance; stop: () => Promise<void> }> = []

  beforeAll(async () => {
    db = await createTestDatabase()
    dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-inval-'))
    const config = loadConfig({
      MAILROOM_ENV: 'development',
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_SECRET: TEST_SECRET,
      LOG_LEVEL: 'silent',
      CLIENT_STATUS_CACHE_SECONDS: '30',
      REFERENCE_CACHE_SECONDS: '60',
    })
    for (let i = 0; i < 2; i++) {
      const ctx = createContext({
        config,
        database: db.handle,
        masterSecret: TEST_SECRET,
        clock,
        invalidations: pgInvalidations({ url: db.url!, backoffMs: 50 }),
      })
      await ctx.keys.init()
      const app = await buildApp(ctx, { logger: false })
      await app.ready()
      nodes.push({ ctx, app, stop: await ctx.invalidations.listen() })
    }
  })
  afterAll(async () => {
    for (const n of nodes) {
      await n.stop()
      await n.app.close()
    }
    await db.drop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  // The caches' clock is the manual one and never moves: only an announcement can change what the
  // other process sees. So `ms` is a budget for a busy machine, not a bound the test proves.
  const within = async (ms: number, check: () => Promise<boolean>) => {
    const started = Date.now()
    while (!(await check())) {
      if (Date.now() - started > ms) return false
      await new Promise((r) => setTimeout(r, 10))
    }
    return true
  }

  it('refuses a client disabled through one process in the other before its cache expires', async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]]
    const client = await a.ctx.clients.createClient({ subscription: 'disable-me' })
    const { access_token: token } = await a.ctx.tokens.issueToken({ ...client, status: 'active' })
    const get = (n: typeof a) =>
      n.app.inject({ method: 'GET', url: '/api/v1/locations', headers: { authorization: `Bearer ${token}` } })
    expect((await get(b)).statusCode).toBe(200) // b holds the status for 30 s
    await a.ctx.clients.setStatus(client.clientId, 'disabled')
    expect(await within(10_000, async () => (await get(b)).statusCode === 401)).toBe(true)
    await a.ctx.clients.setStatus(client.clientId, 'active')
    expect(await within(10_000, async () => (await get(b)).statusCode === 200)).toBe(true)
  })

  it("shows a site renamed through one process in the other's records before its cache expires", async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]]
    const client = await a.ctx.clients.createClient({ subscription: 'rename-me' })
    const { access_token: token } = await a.ctx.tokens.issueToken({ ...client, status: 'active' })
    const call = (n: typeof a, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
      n.app.inject({ method, url, payload: payload as never, headers: { authorization: `Bearer ${token}` } })
    const { locationId } = (
      await call(a, 'POST', '/api/v1/locations', {
        name: 'Tower',
        address: { line1: '1 Main St', city: 'New York', state: 'NY', postalCode: '10001', country: 'US' },
        timezone: 'America/New_York',
      })
    ).json()
    const { inboundSiteId } = (
      await call(a, 'POST', '/api/v1/inboundsites', { type: 'site', name: 'HQ', locationId })
    ).json()
    const added = await call(b, 'POST', '/api/v1/packages', {
      package: { trackingNumber: 'INVAL-1' },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId } },
    })
    expect(added.statusCode, added.body).toBe(201)
    const hierarchy = async () =>
      (await call(b, 'GET', `/api/v1/packages/${added.json().packageId}?type=DETAILED`)).json().currentLocation
        .locationHierarchy
    expect(await hierarchy()).toBe('HQ')
    expect(
      (await call(a, 'PUT', `/api/v1/inboundsites/${inboundSiteId}`, { name: 'Head Office' })).statusCode,
    ).toBeLessThan(300)
    expect(await within(10_000, async () => (await hierarchy()) === 'Head Office')).toBe(true)
  })

  it('announces nothing for a write that rolls back', async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]]
    const heard: Array<string | undefined> = []
    b.ctx.invalidations.on('sites', (key) => heard.push(key))
    await inTransaction(a.ctx.db, async (trx) => {
      await a.ctx.invalidations.announce(trx, 'sites', 'sub_rolled_back')
      throw new Error('roll back')
    }).catch(() => {})
    await inTransaction(a.ctx.db, (trx) => a.ctx.invalidations.announce(trx, 'sites', 'sub_committed'))
    expect(await within(10_000, async () => heard.includes('sub_committed'))).toBe(true)
    expect(heard).not.toContain('sub_rolled_back')
  })

  it('reconnects a lost listener and drops every cache, since announcements may have been missed', async () => {
    const [, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]]
    const drops: Array<string | undefined> = []
    b.ctx.invalidations.on('carriers', (key) => drops.push(key))
    const admin = new pg.Client({ connectionString: db.url })
    await admin.connect()
    try {
      const killed = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'mailroom-invalidation' and datname = current_database()`,
      )
      expect(killed.rowCount).toBe(2)
      expect(await within(10_000, async () => drops.includes(undefined))).toBe(true)
      // Listening again: a change is heard as before.
      expect(
        await within(
          10_000,
          async () =>
            (
              await admin.query(
                `select 1 from pg_stat_activity where application_name = 'mailroom-invalidation' and datname = current_database()`,
              )
            ).rowCount === 2,
        ),
      ).toBe(true)
    } finally {
      await admin.end()
    }
    const [a] = nodes as [(typeof nodes)[0]]
    await a.ctx.invalidations.announce(a.ctx.db, 'carriers', 'sub_after_reconnect')
    expect(await within(10_000, async () => drops.includes('sub_after_reconnect'))).toBe(true)
  })
})
