import { beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import type { TestClient } from '../support/build-test-app.js'
import { useTestApp, useClient } from '../support/use-test-app.js'

/** Issue 14.3: per-subscription rate limits on the whole API, shared by every process on one database. */
describe('rate limits', () => {
  const syncMs = 20
  const t = useTestApp({
    RATE_LIMIT_STORE: 'database',
    RATE_LIMIT_MAX: '5',
    RATE_LIMIT_WINDOW_SECONDS: '60',
    RATE_LIMIT_SYNC_MS: String(syncMs),
  })
  /** Long enough for both processes' background syncs to have run (each is one statement). */
  const synced = () => new Promise((resolve) => setTimeout(resolve, 10 * syncMs))
  /** A second process of the same deployment: its own app and pool, the same database. */
  let other: FastifyInstance
  const a = useClient(t)
  const vip = useClient(t)
  beforeAll(async () => {
    // As RATE_LIMIT_OVERRIDES=<vip's subId>=8 would have set it (the subId exists only now).
    ;(t.config.limits.rate.overrides as Map<string, number>).set(vip.subId, 8)
    other = await t.secondProcess()
  })

  const get = (app: FastifyInstance, c: TestClient) => app.inject({ url: '/api/v1/contacts', headers: c.auth })

  it("counts one subscription's requests through both processes into one window, then answers 429 with the contract body and headers", async () => {
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      const res = await get(i % 2 === 0 ? t.app : other, a)
      statuses.push(res.statusCode)
      if (i < 5) {
        expect(res.headers['ratelimit-limit']).toBe('5')
        // Each process sees the other's hits once both synced, except on its first request for the
        // subscription: it has not read the shared window yet (the request path does no I/O).
        expect(res.headers['ratelimit-remaining']).toBe(String(i === 1 ? 4 : 4 - i))
        await synced()
      } else {
        expect(res.headers['retry-after']).toBe('60')
        expect(res.headers['ratelimit-reset']).toBe('60')
        expect(res.json()).toEqual({
          errors: [
            expect.objectContaining({
              errorCode: 'validation_error',
              additionalCode: 'GEN-4290',
              additionalInfo: 'limit: 5 requests per 60 s',
            }),
          ],
        })
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
    expect((await get(t.app, a)).statusCode).toBe(429)
  })

  it('refuses the rest of a spent window without a write per refusal, and the window stays spent for every process', async () => {
    const c = await t.newClient()
    for (let i = 0; i < 5; i++) {
      expect((await get(i % 2 ? other : t.app, c)).statusCode).toBe(200)
      await synced()
    }
    expect((await get(t.app, c)).statusCode).toBe(429)
    expect((await get(other, c)).statusCode).toBe(429)
    const hitsInDb = async () =>
      Number(
        (
          await sql<{ hits: number }>`select hits from rate_limit_windows where key = ${`rate:sub:${c.subId}`}`.execute(
            t.ctx.db,
          )
        ).rows[0]!.hits,
      )
    const before = await hitsInDb()
    for (let i = 0; i < 20; i++) expect((await get(i % 2 ? other : t.app, c)).statusCode).toBe(429)
    await synced()
    expect(await hitsInDb()).toBe(before)
  })

  it('holds the limit across processes within the documented bound: past it, at most the hits the other process took since its last sync', async () => {
    // The same deployment with a larger limit: bursts of `burst` requests to each process between syncs.
    const c = await t.newClient()
    const max = 40
    ;(t.config.limits.rate.overrides as Map<string, number>).set(c.subId, max)
    const burst = 4
    let admitted = 0
    for (let round = 0; round < 10; round++) {
      for (const app of [t.app, other])
        for (let i = 0; i < burst; i++) if ((await get(app, c)).statusCode === 200) admitted++
      await synced()
    }
    // 80 sent: every one of the limit admitted, and the overshoot at most one process's burst.
    expect(admitted).toBeGreaterThanOrEqual(max)
    expect(admitted).toBeLessThanOrEqual(max + burst)
    expect((await get(t.app, c)).statusCode).toBe(429)
    expect((await get(other, c)).statusCode).toBe(429)
  })

  it("keeps each subscription's window its own, with its configured override", async () => {
    const statuses: number[] = []
    for (let i = 0; i < 9; i++) {
      statuses.push((await get(i % 2 === 0 ? other : t.app, vip)).statusCode)
      await synced()
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429])
  })

  it('opens a new window when the last one ends', async () => {
    expect((await get(other, a)).statusCode).toBe(429)
    t.clock.advance(60_000)
    expect((await get(other, a)).statusCode).toBe(200)
    await synced()
    // The window ended for this process too by its clock; it learns the other's hit at its sync.
    expect((await get(t.app, a)).headers['ratelimit-remaining']).toBe('4')
    await synced()
    expect((await get(other, a)).headers['ratelimit-remaining']).toBe('2')
  })

  it('counts requests without a subscription per address, and never limits the probes', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      statuses.push(
        (await (i % 2 ? other : t.app).inject({ url: '/auth/.well-known/jwks.json', remoteAddress: '203.0.113.9' }))
          .statusCode,
      )
      await synced()
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
    // The token mount answers in OAuth's words, with the same headers.
    const token = await t.app.inject({ method: 'POST', url: '/auth/api/v1/token', remoteAddress: '203.0.113.9' })
    expect(token.statusCode).toBe(429)
    expect(token.headers['retry-after']).toBe('60')
    expect(token.json()).toMatchObject({ error: 'temporarily_unavailable' })
    // Past the limit, credentials are not even checked (no secret hash per request of a flood): the
    // right secret is refused like a wrong one, and neither counts as a failed attempt.
    const client = await t.newClient()
    for (const secret of [client.clientSecret, 'wrong-secret-0123456789abcdef']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/api/v1/token',
        remoteAddress: '203.0.113.9',
        headers: { authorization: `Basic ${Buffer.from(`${client.clientId}:${secret}`).toString('base64')}` },
      })
      expect(res.statusCode).toBe(429)
      expect(res.json()).toMatchObject({ error: 'temporarily_unavailable' })
    }
    expect((await t.app.inject({ url: '/auth/.well-known/jwks.json', remoteAddress: '203.0.113.10' })).statusCode).toBe(
      200,
    )
    for (let i = 0; i < 8; i++)
      expect((await t.app.inject({ url: '/healthz', remoteAddress: '203.0.113.9' })).statusCode).toBe(200)
  })
})
