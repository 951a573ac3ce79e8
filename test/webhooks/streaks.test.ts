import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../support/build-test-app.js'
import { configBody, emit, hooks, HOUR, startWebhookTest, stopWebhookTest } from './support/helpers.js'
import type { Receiver } from './support/receiver.js'

// "5 days of continuous failure disable a configuration" (CONTRACT §4): a failure streak is only
// continuous while deliveries keep failing. It ends with a success, when nothing is left to retry,
// and when its last failure is older than the retry window.
let t: TestApp
let rx: Receiver
const DAY = 24 * HOUR
beforeAll(async () => ({ t, rx } = await startWebhookTest()))
afterAll(() => stopWebhookTest(t, rx))

let paths = 0
async function setup() {
  const client = await t.newClient()
  const h = hooks(t, client)
  const path = `/s${++paths}`
  const cfg = await h.create(configBody(rx.url(path)))
  const id = cfg.webHookConfigID as string
  return {
    id,
    answer: (fn: Parameters<typeof rx.routes.set>[1]) => rx.routes.set(path, fn),
    send: (packageId?: string) => emit(t, client.subId, { eventName: 'Received', packageId }),
    get: () => h.ok('GET', `/webhookConfig/${id}`),
    deliveries: () => h.deliveries(id),
    /** Puts the configuration in a streak begun `since` ago whose last failure was `last` ago. */
    streak: (since: number, last: number) =>
      t.ctx.db
        .updateTable('webhook_configs')
        .set({
          failing_since: new Date(t.clock.now().getTime() - since),
          last_failure_at: new Date(t.clock.now().getTime() - last),
        })
        .where('config_id', '=', id)
        .execute(),
  }
}
const run = () => t.ctx.webhooks.runOnce()

describe('failure streaks', () => {
  it('end when the last pending delivery gives up: a single failure days later does not disable the configuration', async () => {
    const s = await setup()
    s.answer(() => ({ status: 500 }))
    await s.send()
    await run()
    expect((await s.get()).failingSince).toBe(t.clock.now().toISOString())
    while ((await s.deliveries())[0]!.status === 'pending') {
      t.clock.advance(6 * HOUR)
      await run()
    }
    expect((await s.get()).failingSince).toBeUndefined()

    // Six days after the first failure, and the receiver is still down: a new streak, not a disabled configuration.
    t.clock.advance(2 * DAY)
    await s.send()
    await run()
    expect(await s.get()).toMatchObject({
      status: 'active',
      failingSince: t.clock.now().toISOString(),
      failureCount: 1,
    })
  })

  it('start again when the last failure is older than the retry window', async () => {
    const stale = await setup()
    stale.answer(() => ({ status: 500 }))
    await stale.send()
    await stale.streak(6 * DAY, 73 * HOUR)
    await run()
    expect(await stale.get()).toMatchObject({ status: 'active', failingSince: t.clock.now().toISOString() })

    // The same streak with a recent last failure is 6 days of continuous failure.
    const live = await setup()
    live.answer(() => ({ status: 500 }))
    await live.send()
    await live.streak(6 * DAY, HOUR)
    await run()
    expect(await live.get()).toMatchObject({ status: 'in-active', disabledReason: 'failing' })
  })

  it('end with a success, even one answered beside failures: a receiver failing half the time is never disabled', async () => {
    const s = await setup()
    s.answer((r) => (JSON.parse(r.body).data.packageId === 'pkg_half_ok' ? { status: 200 } : { status: 500 }))
    await s.streak(4 * DAY, HOUR)
    await s.send('pkg_half_ok')
    await s.send('pkg_half_bad')
    const step = await run()
    expect(step).toMatchObject({ delivered: 1, failed: 1 })
    // The failure sent together with the success starts a new streak; the one of 4 days is over.
    expect((await s.get()).failingSince).toBe(t.clock.now().toISOString())
    for (let i = 0; i < 8; i++) {
      t.clock.advance(6 * HOUR)
      await run()
    }
    expect((await s.get()).status).toBe('active')

    s.answer(() => ({ status: 204 }))
    t.clock.advance(6 * HOUR)
    await run()
    expect((await s.get()).failingSince).toBeUndefined()
  })

  it('still disable after 5 days of failure without a break, across deliveries', async () => {
    const s = await setup()
    s.answer(() => ({ status: 500 }))
    const start = t.clock.now().getTime()
    for (let h = 0; h < 5 * 24; h += 6) {
      if (h % 24 === 0) await s.send()
      await run()
      expect((await s.get()).status).toBe('active')
      t.clock.advance(6 * HOUR)
    }
    await run()
    expect(t.clock.now().getTime() - start).toBe(5 * DAY)
    expect(await s.get()).toMatchObject({ status: 'in-active', disabledReason: 'failing' })
  })
})
