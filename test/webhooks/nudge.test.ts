import { afterAll, beforeAll, expect, it } from 'vitest'
import type { TestApp } from '../support/build-test-app.js'
import { api, trackingNumber } from '../support/factories.js'
import { configBody, hooks, startWebhookTest } from './support/helpers.js'
import type { Receiver } from './support/receiver.js'

// The worker running inside the service (as `serve` runs it) delivers a package's event after it
// has been idle: on PGlite an idle worker sleeps up to 2 s between looks, and the package write
// (the events' signal) cuts that sleep to 200 ms; on PostgreSQL it looks every 200 ms. When it
// looks is a timing rule, tested with a fake clock in test/unit/job-runner.test.ts; here, that the
// event reaches a worker that has slept its longest (issue 24: no wall-clock assertions in the everyday suite).
let t: TestApp
let rx: Receiver
let stop: () => Promise<void>
beforeAll(async () => ({ t, rx } = await startWebhookTest()))
afterAll(async () => {
  await stop?.()
  await rx.close()
  await t.close()
})

it('delivers an event to a worker that has been idle', async () => {
  const me = await t.newClient()
  const a = api(t, me)
  const m = await a.mailroom()
  await hooks(t, me, 'tracking').create(configBody(rx.url('/tracking'), { events: ['Received'] }))
  stop = t.ctx.webhooks.start()
  // Idle long enough for the back-off to reach its longest sleep (200 + 400 + 800 + 1600 ms).
  await new Promise((r) => setTimeout(r, 3_500))
  const written = Date.now()
  await a.ok('POST', '/api/v1/packages', {
    package: { trackingNumber: trackingNumber() },
    lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.shelfId } },
  })
  while (rx.at('/tracking').length === 0 && Date.now() - written < 5_000) await new Promise((r) => setTimeout(r, 20))
  expect(rx.at('/tracking')).toHaveLength(1)
}, 15_000)
