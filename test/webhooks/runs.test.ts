import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/app/config.js'
import type { TestApp } from '../support/build-test-app.js'
import { configBody, emit, hooks, startWebhookTest, stopWebhookTest } from './support/helpers.js'
import type { Receiver, ReceivedRequest } from './support/receiver.js'

// A package that receives many updates: its deliveries are independent jobs, each sent once, and a
// failing one holds none of the others back (issue 24: no head-of-line blocking). This file's app shortens the retry schedule
// (WEBHOOK_RETRY_*), and the schedule it then follows is checked here too.
const RETRY_ENV = {
  WEBHOOK_RETRY_BASE_SECONDS: '1',
  WEBHOOK_RETRY_MAX_DELAY_SECONDS: '2',
  WEBHOOK_RETRY_WINDOW_SECONDS: '10',
}
let t: TestApp
let rx: Receiver
beforeAll(async () => ({ t, rx } = await startWebhookTest(RETRY_ENV)))
afterAll(() => stopWebhookTest(t, rx))

let paths = 0
async function setup() {
  const client = await t.newClient()
  const h = hooks(t, client)
  const path = `/r${++paths}`
  const cfg = await h.create(configBody(rx.url(path), { events: ['Received', 'InTransit', 'Delivered'] }))
  const packageId = `pkg_hot_${paths}`
  return {
    h,
    cfg,
    path,
    packageId,
    send: async (n: number) => {
      for (let i = 0; i < n; i++) await emit(t, client.subId, { eventName: 'InTransit', packageId })
    },
    sequences: () =>
      rx.at(path).map((r: ReceivedRequest) => (JSON.parse(r.body) as { data: { sequence: number } }).data.sequence),
  }
}
const run = () => t.ctx.webhooks.runOnce()

describe('a hot package', () => {
  it('has each of its deliveries sent once, every one carrying its own sequence', async () => {
    const s = await setup()
    await s.send(120)
    const step = await run()
    expect(step.delivered).toBe(120)
    expect([...s.sequences()].sort((a, b) => a - b)).toEqual(Array.from({ length: 120 }, (_, i) => i + 1))
    const all = await s.h.ok('GET', `/webhookConfig/${s.cfg.webHookConfigID}/deliveries?limit=200`)
    expect(all.deliveries).toHaveLength(120)
    expect(
      all.deliveries.every((d: { status: string; attempts: number }) => d.status === 'delivered' && d.attempts === 1),
    ).toBe(true)
  })

  it('does not hold the later deliveries behind a failing one: only the failing one waits for its retry', async () => {
    const s = await setup()
    let failing = true
    rx.routes.set(s.path, (r) =>
      (JSON.parse(r.body) as { data: { sequence: number } }).data.sequence === 3 && failing
        ? { status: 503 }
        : { status: 200 },
    )
    await s.send(6)
    await run()
    expect([...s.sequences()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6])
    const pending = await s.h.deliveries(s.cfg.webHookConfigID, 'pending')
    expect(pending.map((d) => [d.sequence, d.attempts])).toEqual([[3, 1]])
    const attempts = await s.h.attempts(s.cfg.webHookConfigID, String(pending[0]!.deliveryId))
    expect(attempts).toHaveLength(1)

    failing = false
    t.clock.advance(2_000)
    await run()
    // The retry of 3 comes after 6: a receiver that keeps the last sequence seen ignores it.
    expect(s.sequences().slice(6)).toEqual([3])
    expect(await s.h.deliveries(s.cfg.webHookConfigID, 'pending')).toEqual([])
  })
})

describe('a shortened retry schedule (WEBHOOK_RETRY_*)', () => {
  it('retries within the shortened delays and gives up once the shortened window has passed', async () => {
    const s = await setup()
    rx.routes.set(s.path, () => ({ status: 500 }))
    await s.send(1)
    const started = t.clock.now().getTime()
    await run()
    for (let i = 0; i < 30; i++) {
      const [d] = await s.h.deliveries(s.cfg.webHookConfigID)
      if (d!.status !== 'pending') break
      // Each delay is at most the 2 s ceiling (1 s, then 2 s, then capped), never the default 5 s and up.
      expect(Date.parse(String(d!.nextAttemptAt)) - t.clock.now().getTime()).toBeLessThanOrEqual(2_000)
      t.clock.advance(Date.parse(String(d!.nextAttemptAt)) - t.clock.now().getTime())
      await run()
    }
    const [d] = await s.h.deliveries(s.cfg.webHookConfigID)
    expect(d!.status).toBe('failed')
    expect(t.clock.now().getTime() - started).toBeGreaterThanOrEqual(10_000)
    expect(t.clock.now().getTime() - started).toBeLessThan(10_000 + 2_000 + 1)
    expect(Number(d!.attempts)).toBeGreaterThanOrEqual(6)
  })

  it('is validated at boot: every bad key reported', () => {
    expect(loadConfig({}).webhooks.retry).toEqual({ baseDelayMs: 5_000, maxDelayMs: 21_600_000, windowMs: 259_200_000 })
    expect(loadConfig(RETRY_ENV).webhooks.retry).toEqual({ baseDelayMs: 1_000, maxDelayMs: 2_000, windowMs: 10_000 })
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env)
      } catch (e) {
        return (e as ConfigError).problems
      }
      return []
    }
    expect(problems({ WEBHOOK_RETRY_BASE_SECONDS: '60', WEBHOOK_RETRY_MAX_DELAY_SECONDS: '30' })).toEqual([
      expect.stringMatching(/^WEBHOOK_RETRY_BASE_SECONDS: must not exceed WEBHOOK_RETRY_MAX_DELAY_SECONDS/),
    ])
    expect(problems({ WEBHOOK_RETRY_BASE_SECONDS: '0', WEBHOOK_RETRY_WINDOW_SECONDS: 'soon' })).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^WEBHOOK_RETRY_BASE_SECONDS=/),
        expect.stringMatching(/^WEBHOOK_RETRY_WINDOW_SECONDS=/),
      ]),
    )
  })
})
