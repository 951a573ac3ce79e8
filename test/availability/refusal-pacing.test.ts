import { describe, expect, it } from 'vitest'
import type { TestApp, TestClient } from '../support/build-test-app.js'
import { whilePackagesHeld } from '../support/hold-database.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

/**
 * Issue 14, the neighbour that resends at once: every 429 waits REFUSAL_DELAY_MS (at most its
 * Retry-After) before it is sent, so a client that ignores Retry-After gets one refusal per
 * connection per delay, not thousands a second on the event loop every tenant shares.
 */
const DELAY_MS = 400

const contacts = (t: TestApp, c: TestClient) => t.inject({ url: '/api/v1/contacts', headers: c.auth })

/** Resends at once, as autocannon does, on `connections` connections for `ms`: the answers it got. */
async function flood(send: () => Promise<{ statusCode: number }>, connections: number, ms: number) {
  const until = performance.now() + ms
  const statuses: number[] = []
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) statuses.push((await send()).statusCode)
    }),
  )
  return statuses
}

describe('refusal pacing', () => {
  const t = useTestApp({ REFUSAL_DELAY_MS: String(DELAY_MS), RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SECONDS: '60' })
  const flooder = useClient(t)
  const other = useClient(t)

  it('answers a client over its limit one refusal per connection per delay, and only that client waits', async () => {
    for (let i = 0; i < 3; i++) expect((await contacts(t, flooder)).statusCode).toBe(200)
    const started = performance.now()
    const refused = await contacts(t, flooder)
    expect(refused.statusCode).toBe(429)
    expect(performance.now() - started).toBeGreaterThanOrEqual(DELAY_MS - 5)
    // The refusal keeps its contract body and headers; only its timing changed.
    expect(refused.headers['retry-after']).toBe('60')
    expect(refused.json()).toMatchObject({ errors: [{ additionalCode: 'GEN-4290' }] })

    // 4 connections resending at once for 1.2 s: at most 4 × ⌈1200 / 400⌉ answers (unpaced: hundreds).
    const [statuses] = await Promise.all([
      flood(() => contacts(t, flooder), 4, 1200),
      // Meanwhile another subscription is served: its answers are not held behind the refusals.
      (async () => {
        const res = await contacts(t, other)
        expect(res.statusCode).toBe(200)
      })(),
    ])
    expect(statuses.every((s) => s === 429)).toBe(true)
    expect(statuses.length).toBeLessThanOrEqual(4 * Math.ceil(1200 / DELAY_MS))
  })
})

describe('refusal pacing with a Retry-After shorter than the delay', () => {
  // A tenant's concurrency bound answers Retry-After: 1; the delay is 5 s: the refusal comes after about 1 s.
  const t = useTestApp({ REFUSAL_DELAY_MS: '5000', TENANT_MAX_SEARCHES: '1' })
  const c = useClient(t)
  const search = () => t.inject({ url: '/api/v1/packages?search=receiver.name:smith', headers: c.auth })

  it("waits no longer than the refusal's Retry-After", async () => {
    expect((await search()).statusCode).toBe(200)
    // The first search stays in flight while the packages table is locked, so the second is over the bound.
    let first!: Promise<{ statusCode: number }>
    let refused!: { statusCode: number; headers: Record<string, unknown> }
    let tookMs = 0
    await whilePackagesHeld(t, async () => {
      first = search()
      await new Promise((r) => setTimeout(r, 100))
      const started = performance.now()
      refused = await search()
      tookMs = performance.now() - started
    })
    expect((await first).statusCode).toBe(200)
    expect(refused.statusCode).toBe(429)
    expect(refused.headers['retry-after']).toBe('1')
    expect(tookMs).toBeGreaterThanOrEqual(1000 - 5)
    expect(tookMs).toBeLessThan(5000)
  })
})
