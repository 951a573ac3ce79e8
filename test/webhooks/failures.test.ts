import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../support/spawn-service.js'
import type { TestApp } from '../support/build-test-app.js'
import { configBody, emit, hooks, HOUR, startWebhookTest, stopWebhookTest } from './support/helpers.js'
import type { Receiver } from './support/receiver.js'

// What happens when the receiver does not answer 2xx: retries, Retry-After, 410, redirects, limits,
// giving up, manual retry, and configuration changes while deliveries are pending.
let t: TestApp
let rx: Receiver
beforeAll(async () => ({ t, rx } = await startWebhookTest()))
afterAll(() => stopWebhookTest(t, rx))

let paths = 0
async function setup(overrides: Record<string, unknown> = {}) {
  const client = await t.newClient()
  const h = hooks(t, client)
  const path = `/f${++paths}`
  const cfg = await h.create(configBody(rx.url(path), overrides))
  const id = cfg.webHookConfigID as string
  return {
    client,
    h,
    cfg,
    id,
    path,
    got: () => rx.at(path),
    answer: (fn: Parameters<typeof rx.routes.set>[1]) => rx.routes.set(path, fn),
    send: (eventName = 'Received', packageId?: string) => emit(t, client.subId, { eventName, packageId }),
    one: async () => (await h.deliveries(id))[0]!,
    get: () => h.ok('GET', `/webhookConfig/${id}`),
  }
}
const run = () => t.ctx.webhooks.runOnce()

describe('failed attempts', () => {
  it('500 then 200: retried with backoff and delivered, every attempt recorded', async () => {
    const s = await setup()
    let calls = 0
    s.answer(() => (++calls === 1 ? { status: 500, body: 'database down' } : { status: 204 }))
    await s.send()
    const start = t.clock.now().getTime()
    await run()
    const pending = await s.one()
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500' })
    const next = new Date(pending.nextAttemptAt as string).getTime() - start
    expect(next).toBeGreaterThanOrEqual(1000)
    expect(next).toBeLessThanOrEqual(5000)
    expect(await s.get()).toMatchObject({
      failureCount: 1,
      failingSince: new Date(start).toISOString(),
      lastDeliveryAt: null,
    })

    await run()
    expect(s.got()).toHaveLength(1)
    t.clock.advance(5000)
    await run()
    expect(s.got()).toHaveLength(2)
    expect(s.got()[0]!.headers['webhook-id']).toBe(s.got()[1]!.headers['webhook-id'])
    const done = await s.one()
    expect(done).toMatchObject({
      status: 'delivered',
      attempts: 2,
      lastStatusCode: 204,
      deliveredAt: t.clock.now().toISOString(),
    })
    expect(done.lastError).toBeUndefined()
    expect(done.nextAttemptAt).toBeUndefined()
    const attempts = await s.h.attempts(s.id, done.deliveryId as string)
    expect(attempts).toEqual([
      {
        attemptNo: 1,
        attemptedAt: new Date(start).toISOString(),
        succeeded: false,
        statusCode: 500,
        latencyMs: expect.any(Number),
        errorClass: 'http_5xx',
        error: 'HTTP 500',
        responseBody: 'database down',
      },
      {
        attemptNo: 2,
        attemptedAt: t.clock.now().toISOString(),
        succeeded: true,
        statusCode: 204,
        latencyMs: expect.any(Number),
      },
    ])
    expect(await s.get()).toMatchObject({ failureCount: 0, lastDeliveryAt: t.clock.now().toISOString() })
    expect((await s.get()).failingSince).toBeUndefined()
    expect(await s.h.deliveries(s.id, 'delivered')).toHaveLength(1)
    expect(await s.h.deliveries(s.id, 'failed')).toHaveLength(0)
  })

  it('honours Retry-After in seconds and as an HTTP date', async () => {
    const s = await setup()
    let calls = 0
    s.answer(() => {
      calls++
      if (calls === 1) return { status: 429, headers: { 'retry-after': '120' } }
      if (calls === 2)
        return { status: 503, headers: { 'retry-after': new Date(t.clock.now().getTime() + 600_000).toUTCString() } }
      return { status: 200 }
    })
    await s.send()
    await run()
    expect((await s.one()).nextAttemptAt).toBe(new Date(t.clock.now().getTime() + 120_000).toISOString())
    t.clock.advance(119_000)
    await run()
    expect(s.got()).toHaveLength(1)
    t.clock.advance(1000)
    await run()
    expect(s.got()).toHaveLength(2)
    expect((await s.one()).nextAttemptAt).toBe(
      new Date(Math.floor(t.clock.now().getTime() / 1000) * 1000 + 600_000).toISOString(),
    )
    t.clock.advance(600_000)
    await run()
    expect((await s.one()).status).toBe('delivered')
  })

  it('410 Gone disables the configuration and fails its pending deliveries', async () => {
    const s = await setup()
    s.answer((r) => (JSON.parse(r.body).data.packageId === 'pkg_gone_1' ? { status: 410 } : { status: 500 }))
    await s.send('Received', 'pkg_gone_2')
    await run()
    await s.send('Received', 'pkg_gone_1')
    t.clock.advance(1)
    await run()
    const cfg = await s.get()
    expect(cfg).toMatchObject({ status: 'in-active', disabledReason: 'gone', disabledAt: t.clock.now().toISOString() })
    const all = await s.h.deliveries(s.id)
    expect(all.map((d) => d.status)).toEqual(['failed', 'failed'])
    expect(all.find((d) => d.packageId === 'pkg_gone_1')).toMatchObject({
      lastStatusCode: 410,
      lastError: expect.stringContaining('gone'),
    })
    expect(all.find((d) => d.packageId === 'pkg_gone_2')!.lastError).toContain('410')

    const before = s.got().length
    await s.send()
    t.clock.advance(HOUR)
    await run()
    expect(s.got()).toHaveLength(before)
    expect(await s.h.deliveries(s.id)).toHaveLength(2)
    const retry = await s.h.call('POST', `/webhookConfig/${s.id}/deliveries/${all[0]!.deliveryId}/retry`)
    expect(retry.statusCode).toBe(409)

    // Re-enabled by hand: new events flow again, and the failed ones can be retried.
    s.answer(() => ({ status: 200 }))
    const enabled = await s.h.ok('PUT', `/webhookConfig/${s.id}`, configBody(rx.url(s.path)))
    expect(enabled.status).toBe('active')
    expect(enabled.disabledReason).toBeUndefined()
    await s.h.ok('POST', `/webhookConfig/${s.id}/deliveries/${all[0]!.deliveryId}/retry`)
    await run()
    expect(await s.h.deliveries(s.id, 'delivered')).toHaveLength(1)
  })

  it('does not follow redirects: a 3xx is a failure', async () => {
    const s = await setup()
    s.answer(() => ({ status: 302, headers: { location: rx.url(`${s.path}-elsewhere`) } }))
    await s.send()
    await run()
    expect(rx.at(`${s.path}-elsewhere`)).toHaveLength(0)
    const d = await s.one()
    expect(d).toMatchObject({
      status: 'pending',
      lastStatusCode: 302,
      lastError: expect.stringContaining('redirects are not followed'),
    })
    expect((await s.h.attempts(s.id, d.deliveryId as string))[0]!.errorClass).toBe('http_3xx')
  })

  it('gives a receiver timeOut seconds, keeps 4 KiB of a response, and names connection failures', async () => {
    const slow = await setup({ timeOut: 1 })
    slow.answer(() => 'hold')
    const big = await setup()
    big.answer(() => ({ status: 500, body: 'x'.repeat(10_000) }))
    const closed = await setup({ url: `http://127.0.0.1:${await freePort()}/nobody` })
    await slow.send()
    await big.send()
    await closed.send()
    await run()
    const classOf = async (s: Awaited<ReturnType<typeof setup>>) =>
      (await s.h.attempts(s.id, (await s.one()).deliveryId as string))[0]!
    expect(await classOf(slow)).toMatchObject({ errorClass: 'timeout', latencyMs: expect.any(Number) })
    // It had its whole second before the timeout (a lower bound: a loaded machine only adds to it).
    expect((await classOf(slow)).latencyMs as number).toBeGreaterThanOrEqual(1000)
    expect((await classOf(big)).responseBody as string).toHaveLength(4096)
    expect(await classOf(closed)).toMatchObject({
      errorClass: 'connect',
      error: expect.stringContaining('ECONNREFUSED'),
    })
    slow.answer(() => ({ status: 200 }))
    rx.release()
  })

  it('retries for at least 72 hours, then fails; a manual retry makes it due now', async () => {
    const s = await setup()
    s.answer(() => ({ status: 503 }))
    await s.send()
    const start = t.clock.now().getTime()
    await run()
    while ((await s.one()).status === 'pending') {
      t.clock.advance(6 * HOUR)
      await run()
    }
    const failed = await s.one()
    const last = new Date(
      (await s.h.attempts(s.id, failed.deliveryId as string)).at(-1)!.attemptedAt as string,
    ).getTime()
    expect(last - start).toBeGreaterThanOrEqual(72 * HOUR)
    expect(failed).toMatchObject({
      status: 'failed',
      lastError: expect.stringMatching(/^HTTP 503 \(gave up after \d+ attempts\)$/),
    })
    expect(failed.attempts).toBe(s.got().length)

    s.answer(() => ({ status: 200 }))
    const retried = await s.h.ok('POST', `/webhookConfig/${s.id}/deliveries/${failed.deliveryId}/retry`)
    expect(retried).toMatchObject({ status: 'pending', nextAttemptAt: t.clock.now().toISOString() })
    await run()
    expect(await s.one()).toMatchObject({ status: 'delivered', attempts: (failed.attempts as number) + 1 })
    const again = await s.h.call('POST', `/webhookConfig/${s.id}/deliveries/${failed.deliveryId}/retry`)
    expect(again.statusCode).toBe(409)
    expect(again.json().errors[0].additionalCode).toBe('WHK-4091')
    expect((await s.h.call('POST', `/webhookConfig/${s.id}/deliveries/dlv_nope/retry`)).statusCode).toBe(404)
  })

  it('gives every event of a package its own 72-hour window from its own first attempt, none held behind another', async () => {
    const s = await setup()
    s.answer(() => ({ status: 503 }))
    await s.send('Received', 'pkg_held')
    await s.send('Delivered', 'pkg_held')
    const giveUpAt = async (deliveryId: string) =>
      (
        await t.ctx.db
          .selectFrom('webhook_deliveries')
          .select('give_up_at')
          .where('delivery_id', '=', deliveryId)
          .executeTakeFirstOrThrow()
      ).give_up_at
    await run()
    // Delivery is at least once and unordered: the second event is tried while the first one fails.
    expect(
      s
        .got()
        .map((r) => JSON.parse(r.body).eventName)
        .sort(),
    ).toEqual(['Delivered', 'Received'])
    const firstTry = t.clock.now().getTime()
    const deliveries = await s.h.deliveries(s.id)
    expect(deliveries).toHaveLength(2)
    for (const d of deliveries) {
      expect(d).toMatchObject({ status: 'pending', attempts: 1 })
      expect((await giveUpAt(d.deliveryId as string))!.getTime()).toBe(firstTry + 72 * HOUR)
    }
    s.answer(() => ({ status: 200 }))
    t.clock.advance(6 * HOUR)
    await run()
    for (const d of await s.h.deliveries(s.id)) expect(d).toMatchObject({ status: 'delivered' })
  })

  it('disables a configuration after 5 days of continuous failure', async () => {
    const s = await setup()
    s.answer(() => ({ status: 500 }))
    const start = t.clock.now().getTime()
    let disabledAt: number | undefined
    for (let h = 0; h <= 6 * 24 && !disabledAt; h += 6) {
      if (h % 12 === 0) await s.send()
      await run()
      if ((await s.get()).status === 'in-active') disabledAt = t.clock.now().getTime()
      else t.clock.advance(6 * HOUR)
    }
    expect(disabledAt! - start).toBeGreaterThanOrEqual(5 * 24 * HOUR)
    expect(disabledAt! - start).toBeLessThanOrEqual(5 * 24 * HOUR + 6 * HOUR)
    expect(await s.get()).toMatchObject({ disabledReason: 'failing', failureCount: expect.any(Number) })
    expect(await s.h.deliveries(s.id, 'pending')).toEqual([])
  })
})

describe('configuration changes', () => {
  it('an update applies to the next attempt: url, auth and events are read when sending', async () => {
    const s = await setup({ events: ['Received', 'Delivered'] })
    s.answer(() => ({ status: 500 }))
    await s.send('Received', 'pkg_upd_1')
    await s.send('Delivered', 'pkg_upd_2')
    await run()
    expect(s.got()).toHaveLength(2)
    await s.h.ok(
      'PUT',
      `/webhookConfig/${s.id}`,
      configBody(rx.url(`${s.path}-new`), {
        events: ['Received'],
        authParams: { authType: 'custom', headerName: 'X-Token', apiKey: 'new-key-42' },
      }),
    )
    t.clock.advance(10_000)
    await run()
    const moved = rx.at(`${s.path}-new`)
    expect(moved.map((r) => JSON.parse(r.body).eventName)).toEqual(['Received'])
    expect(moved[0]!.headers['x-token']).toBe('new-key-42')
    expect(s.got()).toHaveLength(2)
    const byName = Object.fromEntries((await s.h.deliveries(s.id)).map((d) => [d.eventName, d]))
    expect(byName.Received).toMatchObject({ status: 'delivered' })
    expect(byName.Delivered).toMatchObject({ status: 'failed', lastError: 'event no longer subscribed' })
  })

  it('a deleted configuration gets nothing more: pending deliveries are cancelled', async () => {
    const s = await setup()
    s.answer(() => ({ status: 500 }))
    await s.send()
    await run()
    await s.h.ok('DELETE', `/webhookConfig/${s.id}`)
    await s.send()
    t.clock.advance(HOUR)
    await run()
    expect(s.got()).toHaveLength(1)
    const rows = await t.ctx.db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('config_id', '=', s.id)
      .execute()
    expect(rows.map((r) => r.status)).toEqual(['cancelled'])
  })

  it('setting a configuration in-active fails its pending deliveries and stops new ones', async () => {
    const s = await setup()
    s.answer(() => ({ status: 500 }))
    await s.send()
    await run()
    await s.h.ok('PUT', `/webhookConfig/${s.id}`, configBody(rx.url(s.path), { status: 'in-active' }))
    expect(await s.one()).toMatchObject({ status: 'failed', lastError: 'configuration set in-active' })
    await s.send()
    t.clock.advance(HOUR)
    await run()
    expect(s.got()).toHaveLength(1)
    expect(await s.h.deliveries(s.id)).toHaveLength(1)
  })
})
