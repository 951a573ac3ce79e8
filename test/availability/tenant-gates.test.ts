import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { whilePackagesHeld } from '../support/hold-database.js'
import { useTestApp, useClient } from '../support/use-test-app.js'

/**
 * Issue 14.2: one subscription's searches, exports and bulk operations are bounded, so it cannot
 * occupy the pool. The database is held (packages locked in an open transaction) so requests stay
 * in flight while the test looks at what the next one gets.
 */
describe('per-subscription bounds on expensive operations', () => {
  // One heavy slot for the whole process, so taking turns shows in its gauges.
  const t = useTestApp({ TENANT_MAX_SEARCHES: '2', TENANT_MAX_EXPORTS: '1', HEAVY_OPERATIONS_MAX: '1' })
  let a: TestClient
  const b = useClient(t)
  beforeAll(async () => {
    a = await t.newClient()
    // Client status and reference data cached now, so only the gated work waits on the held database.
    for (const c of [a, b]) expect((await search(c)).statusCode).toBe(200)
  })

  const whileDatabaseHeld = (during: () => Promise<void>) => whilePackagesHeld(t, during)

  const search = (c: TestClient) =>
    t.inject({
      method: 'GET',
      url: '/api/v1/packages?search=receiver.name:smith&secondTierSearchSelected=true',
      headers: c.auth,
    })
  const exportCsv = (c: TestClient) =>
    t.inject({
      method: 'POST',
      url: '/api/v1/packages/search',
      headers: { ...c.auth, accept: 'text/csv', 'content-type': 'application/json' },
      payload: '{}',
    })
  const settle = () => new Promise((r) => setTimeout(r, 100))

  it("refuses a third concurrent search of one subscription with 429 and Retry-After, not another subscription's", async () => {
    let pending: Array<Promise<{ statusCode: number }>> = []
    await whileDatabaseHeld(async () => {
      pending = [search(a), search(a)]
      await settle()
      const third = await search(a)
      expect(third.statusCode).toBe(429)
      expect(third.headers['retry-after']).toBe('1')
      expect(third.json().errors).toEqual([
        expect.objectContaining({
          errorCode: 'validation_error',
          additionalCode: 'GEN-4291',
          additionalInfo: 'limit: 2 concurrent package searches',
        }),
      ])
      pending.push(search(b))
      await settle()
    })
    expect((await Promise.all(pending)).map((r) => r.statusCode)).toEqual([200, 200, 200])
    // The slots came back.
    expect((await search(a)).statusCode).toBe(200)
  })

  it('allows one CSV export at a time per subscription, counted apart from searches', async () => {
    let pending: Array<Promise<{ statusCode: number }>> = []
    await whileDatabaseHeld(async () => {
      pending = [exportCsv(a)]
      await settle()
      const second = await exportCsv(a)
      expect(second.statusCode).toBe(429)
      expect(second.json().errors[0].additionalInfo).toBe('limit: 1 concurrent CSV exports')
      pending.push(search(a))
      await settle()
    })
    expect((await Promise.all(pending)).map((r) => r.statusCode)).toEqual([200, 200])
    expect((await exportCsv(a)).statusCode).toBe(200)
  })

  /** The process's heavy-slot gauges, as an operator reads them at /metrics. */
  async function heavySlots(): Promise<{ busy: number; waiting: number }> {
    const text = (await t.inject({ method: 'GET', url: '/metrics' })).body
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1])
    return { busy: gauge('mailroom_heavy_slots_busy'), waiting: gauge('mailroom_heavy_slots_waiting') }
  }

  it("makes an export take the heavy slot for its batch, so another tenant's search waits its turn, and gives it back", async () => {
    let pending: Array<Promise<{ statusCode: number }>> = []
    await whileDatabaseHeld(async () => {
      pending = [exportCsv(a)]
      await settle()
      // The export's first batch holds the one slot while it reads.
      expect(await heavySlots()).toEqual({ busy: 1, waiting: 0 })
      pending.push(search(b))
      await settle()
      expect(await heavySlots()).toEqual({ busy: 1, waiting: 1 })
    })
    const done = await Promise.all(pending)
    expect(done.map((r) => r.statusCode)).toEqual([200, 200])
    expect(await heavySlots()).toEqual({ busy: 0, waiting: 0 })
  })

  it('gives the slot back when the request fails', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await t.inject({ method: 'GET', url: '/api/v1/packages?search=nonsense:x', headers: a.auth })
      expect(res.statusCode).toBe(400)
    }
    expect((await search(a)).statusCode).toBe(200)
  })
})

describe('lookups are not searches', () => {
  const t = useTestApp({ TENANT_MAX_SEARCHES: '1' })
  let a: TestClient
  beforeAll(async () => {
    a = await t.newClient()
  })

  it('never bounds tracking-number and id lookups, which a clerk fires per scan', async () => {
    const urls = [
      'trackingNumber:1Z&searchPosition=starts',
      'trackingNumber:84&searchPosition=ends',
      'packageId:pkg_x',
      'trackingNumber:1Z9&searchPosition=starts',
    ]
    const res = await Promise.all(urls.map((q) => t.inject({ url: `/api/v1/packages?search=${q}`, headers: a.auth })))
    expect(res.map((r) => r.statusCode)).toEqual([200, 200, 200, 200])
  })
})
