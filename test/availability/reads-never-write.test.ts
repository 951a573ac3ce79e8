import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { api, trackingNumber } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'
import { countWrites } from '../support/write-counter.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Issue 26.7: a read costs the database nothing but the read. The rate limiter counts in the
 * process and adds its counts to the shared windows in the background, at most one statement per
 * RATE_LIMIT_SYNC_MS whatever the load; no GET writes anything on its way.
 */
describe('reads never write', () => {
  // The shared windows even on PGlite, and the longest sync interval: a write seen within it is the requests'.
  const syncMs = 60_000
  const t = useTestApp({ RATE_LIMIT_STORE: 'database', RATE_LIMIT_SYNC_MS: String(syncMs) })
  let reads: string[] = []
  let reader: TestClient
  beforeAll(async () => {
    reader = await t.newClient()
    const a = api(t, reader)
    const tn = trackingNumber('RNW')
    const contactId = await a.contact('RECEIVER', 'Reader One')
    const { packageId } = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: tn, receiver: { contactId } },
      lastActivity: { status: 'RECEIVED' },
    })
    reads = [
      `/api/v1/packages/${packageId}?type=DETAILED`,
      `/api/v1/packages/${packageId}?type=ACTIVITIES`,
      `/api/v1/packages/tracking/${tn}`,
      `/api/v1/packages?search=trackingNumber:${tn}`,
      `/api/v1/packages?search=trackingNumber:${tn.slice(0, 6)}&searchPosition=starts&page=1&size=25`,
      `/api/v1/contacts/${contactId}`,
      '/api/v1/contacts',
    ]
  })

  it('answers 2,000 authenticated GETs without writing a row of any table (rate_limit_windows included)', async () => {
    const c = reader
    const writes = await countWrites(t.ctx.db)
    const started = Date.now()
    for (let i = 0; i < 2000; i++) {
      const res = await t.inject({ url: reads[i % reads.length]!, headers: c.auth })
      expect(res.statusCode, `${reads[i % reads.length]}: ${res.body}`).toBe(200)
    }
    // Zero, unless this machine took longer than a sync interval: then one write per interval at most.
    const { rate_limit_windows: rateWrites = 0, ...others } = await writes.perTable()
    expect(others).toEqual({})
    expect(rateWrites).toBeLessThanOrEqual(Math.floor((Date.now() - started) / syncMs))
  }, 180_000)
})

describe('the shared windows are reconciled in the background at a bounded rate', () => {
  const syncMs = 100
  // Reported from 12 requests a window (12,000 over 1,000 processes): every request here could matter.
  const t = useTestApp({
    RATE_LIMIT_STORE: 'database',
    RATE_LIMIT_SYNC_MS: String(syncMs),
    RATE_LIMIT_PROCESSES: '1000',
  })

  it('writes rate_limit_windows at most once per interval per process however many requests it serves, and does write it', async () => {
    const c = await t.newClient()
    const writes = await countWrites(t.ctx.db)
    const started = Date.now()
    let served = 0
    while (Date.now() - started < 1000) {
      expect((await t.inject({ url: '/api/v1/contacts', headers: c.auth })).statusCode).toBe(200)
      served++
    }
    const elapsed = Date.now() - started
    await sleep(3 * syncMs)
    const rateWrites = (await writes.perTable()).rate_limit_windows ?? 0
    expect(served).toBeGreaterThan(20)
    expect(rateWrites).toBeGreaterThan(0)
    // One row per subscription per sync: this client's subscription only.
    expect(rateWrites).toBeLessThanOrEqual(Math.ceil((elapsed + 3 * syncMs) / syncMs) + 1)
  })
})
