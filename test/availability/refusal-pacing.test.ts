import { describe, expect, it } from 'vitest'
import type { TestApp, TestClient } from '../support/build-test-app.js'
import { whilePackagesHeld } from '../support/hold-database.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

/**
 * Issue 14, the neighbour that resends at once: every 429 waits REFUSAL_DELAY_MS (at most its
 * Retry-After) before it is sent, so a client that ignores Retry-After gets one refusal per
 * connection per delay, not thousands a second on the event loop every tenant shares. What each
 * refusal waited is read at /metrics, as an operator would, not timed here (issue 24: no wall-clock
 * assertions in the everyday suite; the effect on a neighbour is measured by npm run bench:neighbour).
 */
const DELAY_MS = 400

const contacts = (t: TestApp, c: TestClient) => t.inject({ url: '/api/v1/contacts', headers: c.auth })

/** Refusals paced so far, and the seconds they were held, from /metrics. */
async function paced(t: TestApp): Promise<{ refusals: number; seconds: number }> {
  const text = (await t.inject({ url: '/metrics' })).body
  const read = (name: string) => Number(new RegExp(`^${name} ([\\d.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN)
  return { refusals: read('mailroom_refusals_paced_total'), seconds: read('mailroom_refusals_paced_seconds_total') }
}

describe('refusal pacing', () => {
  const t = useTestApp({ REFUSAL_DELAY_MS: String(DELAY_MS), RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SECONDS: '60' })
  const flooder = useClient(t)
  const other = useClient(t)

  it('holds every refusal of a client over its limit for the delay, and only that client waits', async () => {
    for (let i = 0; i < 3; i++) expect((await contacts(t, flooder)).statusCode).toBe(200)
    const before = await paced(t)
    const refused = await contacts(t, flooder)
    expect(refused.statusCode).toBe(429)
    // The refusal keeps its contract body and headers; only its timing changed.
    expect(refused.headers['retry-after']).toBe('60')
    expect(refused.json()).toMatchObject({ errors: [{ additionalCode: 'GEN-4290' }] })
    const once = await paced(t)
    expect(once.refusals).toBe(before.refusals + 1)
    expect(once.seconds).toBeCloseTo(before.seconds + DELAY_MS / 1000, 6)

    // 4 connections resending at once, 3 times each: every answer a refusal, each held for the delay,
    // so a connection gets one answer per delay. Meanwhile another subscription is served first: its
    // answer is not queued behind the refusals.
    const answered: string[] = []
    const resend = async () => {
      for (let i = 0; i < 3; i++) answered.push(`flooder ${(await contacts(t, flooder)).statusCode}`)
    }
    const flood = Promise.all(Array.from({ length: 4 }, resend))
    answered.push(`other ${(await contacts(t, other)).statusCode}`)
    await flood
    expect(answered[0]).toBe('other 200')
    expect(answered.slice(1)).toEqual(Array(12).fill('flooder 429'))
    const after = await paced(t)
    expect(after.refusals).toBe(before.refusals + 13)
    expect(after.seconds).toBeCloseTo(before.seconds + (13 * DELAY_MS) / 1000, 6)
  })
})

describe('refusal pacing with a Retry-After shorter than the delay', () => {
  // A tenant's concurrency bound answers Retry-After: 1; the delay is 5 s: the refusal is held 1 s.
  const t = useTestApp({ REFUSAL_DELAY_MS: '5000', TENANT_MAX_SEARCHES: '1' })
  const c = useClient(t)
  const search = () => t.inject({ url: '/api/v1/packages?search=receiver.name:smith', headers: c.auth })

  it('holds the refusal no longer than its Retry-After', async () => {
    expect((await search()).statusCode).toBe(200)
    const before = await paced(t)
    // The first search stays in flight while the packages table is locked, so the second is over the bound.
    let first!: Promise<{ statusCode: number }>
    let refused!: { statusCode: number; headers: Record<string, unknown> }
    await whilePackagesHeld(t, async () => {
      first = search()
      await new Promise((r) => setTimeout(r, 100))
      refused = await search()
    })
    expect((await first).statusCode).toBe(200)
    expect(refused.statusCode).toBe(429)
    expect(refused.headers['retry-after']).toBe('1')
    const after = await paced(t)
    expect(after.refusals).toBe(before.refusals + 1)
    expect(after.seconds).toBeCloseTo(before.seconds + 1, 6)
  })
})
