import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../support/build-test-app.js'
import {
  configBody,
  emit,
  hooks,
  HOUR,
  startWebhookTest,
  stopWebhookTest,
  type Variant,
  verify,
} from './support/helpers.js'
import type { Receiver, ReceivedRequest } from './support/receiver.js'

// What a receiver gets: signed, authenticated, only what it subscribed to; each delivery on its
// own, at least once and in no guaranteed order, every event carrying its package's sequence.
let t: TestApp
let rx: Receiver
beforeAll(async () => ({ t, rx } = await startWebhookTest()))
afterAll(() => stopWebhookTest(t, rx))

let paths = 0
/** A new subscription with one configuration whose receiver path is its own. */
async function setup(overrides: Record<string, unknown> = {}, variant: Variant = 'tracking') {
  const client = await t.newClient()
  const h = hooks(t, client, variant)
  const path = `/d${++paths}`
  const cfg = await h.create(configBody(rx.url(path), overrides))
  return {
    client,
    h,
    cfg,
    path,
    got: () => rx.at(path),
    send: (eventName: string, e: { packageId?: string; variant?: Variant } = {}) =>
      emit(t, client.subId, { eventName, variant, ...e }),
  }
}
const bodyOf = (r: ReceivedRequest) => JSON.parse(r.body)
const run = () => t.ctx.webhooks.runOnce()

describe('notifications', () => {
  it('are signed with Standard Webhooks and carry the contract body', async () => {
    const s = await setup()
    const e = await s.send('Received')
    await run()
    const [req] = s.got()
    expect(req!.method).toBe('POST')
    expect(req!.headers['content-type']).toBe('application/json')
    expect(req!.headers['webhook-id']).toBe(e.eventId)
    expect(req!.headers['webhook-timestamp']).toBe(String(Math.floor(t.clock.now().getTime() / 1000)))
    expect(req!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    expect(req!.headers.authorization).toBeUndefined()
    expect(verify(s.cfg.signingSecret, req!, t.clock.now())).toEqual({
      eventId: e.eventId,
      eventName: 'Received',
      type: 'tracking',
      occurredAt: t.clock.now().toISOString(),
      subId: s.client.subId,
      webHookConfigID: s.cfg.webHookConfigID,
      data: expect.objectContaining({ packageId: e.packageId, sequence: 1, currentStatus: 'RECEIVED' }),
    })
    expect(() => verify('whsec_' + Buffer.alloc(32, 1).toString('base64'), req!, t.clock.now())).toThrow(/signature/)
    const tampered = { ...req!, body: req!.body.replace('Received', 'Delivered') }
    expect(() => verify(s.cfg.signingSecret, tampered, t.clock.now())).toThrow(/signature/)
  })

  it('carry the configured custom header or basic credentials', async () => {
    const custom = await setup({ authParams: { authType: 'custom', headerName: 'X-Api-Key', apiKey: 'k-123456789' } })
    const basicAuth = await setup({ authParams: { authType: 'basic', username: 'hook user', password: 'p@ss:word' } })
    await custom.send('Received')
    await basicAuth.send('Received')
    await run()
    expect(custom.got()[0]!.headers['x-api-key']).toBe('k-123456789')
    expect(basicAuth.got()[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('hook user:p@ss:word').toString('base64')}`,
    )
  })

  it('get an OAuth2 client-credentials token, cached until it expires', async () => {
    rx.tokenRequests.length = 0
    let n = 0
    rx.tokenResponder = () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ access_token: `tok-${++n}`, token_type: 'bearer', expires_in: 3600 }),
    })
    const s = await setup({
      authParams: {
        authType: 'oauth2',
        tokenUrl: rx.url('/token'),
        clientId: 'my client',
        clientSecret: 'sec/ret',
        scope: 'hooks.write',
      },
    })
    await s.send('Received')
    await s.send('Delivered')
    await run()
    expect(s.got().map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-1'])
    expect(rx.tokenRequests).toHaveLength(1)
    const tokenReq = rx.tokenRequests[0]!
    expect(tokenReq.headers['content-type']).toBe('application/x-www-form-urlencoded')
    expect(tokenReq.headers.authorization).toBe(`Basic ${Buffer.from('my%20client:sec%2Fret').toString('base64')}`)
    expect(Object.fromEntries(new URLSearchParams(tokenReq.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'hooks.write',
    })

    t.clock.advance(HOUR)
    await s.send('Received')
    await run()
    expect(s.got()[2]!.headers.authorization).toBe('Bearer tok-2')
    expect(rx.tokenRequests).toHaveLength(2)

    // A refusing token endpoint fails the attempt (class oauth) without calling the receiver.
    rx.tokenResponder = () => ({ status: 401, body: '{"error":"invalid_client"}' })
    t.clock.advance(HOUR)
    await s.send('Delivered')
    await run()
    expect(s.got()).toHaveLength(3)
    const [pending] = await s.h.deliveries(s.cfg.webHookConfigID, 'pending')
    expect(pending!.lastError).toBe('OAuth2 token: token endpoint answered 401')
    expect((await s.h.attempts(s.cfg.webHookConfigID, pending!.deliveryId as string))[0]).toMatchObject({
      errorClass: 'oauth',
      succeeded: false,
    })
  })

  it('go only to configurations that subscribed to the event, of their variant and their subscription', async () => {
    const s = await setup({ events: ['Received', 'Delivered'] })
    const locker = await setup({ type: 'locker', events: ['Deposited'] }, 'locker')
    await s.send('Received')
    await s.send('InTransit')
    await s.send('Delivered')
    await s.send('Deposited', { variant: 'locker' })
    await locker.send('Received')
    await locker.send('Deposited', { variant: 'locker' })
    await run()
    // Different packages: sent concurrently, in no particular order.
    expect(
      s
        .got()
        .map((r) => bodyOf(r).eventName)
        .sort(),
    ).toEqual(['Delivered', 'Received'])
    expect(locker.got().map((r) => [bodyOf(r).eventName, bodyOf(r).type])).toEqual([['Deposited', 'locker']])
    expect((await s.h.deliveries(s.cfg.webHookConfigID)).map((d) => d.eventName).sort()).toEqual([
      'Delivered',
      'Received',
    ])
  })

  it('do not include events that occurred before the configuration existed', async () => {
    const client = await t.newClient()
    await emit(t, client.subId, { eventName: 'Received' })
    t.clock.advance(1)
    const cfg = await hooks(t, client).create(configBody(rx.url('/before')))
    await run()
    expect(rx.at('/before')).toHaveLength(0)
    expect(await hooks(t, client).deliveries(cfg.webHookConfigID)).toEqual([])
  })

  it('are independent: a failing delivery does not hold the later ones of its package, which carry their sequence', async () => {
    const s = await setup({ events: ['Received', 'InTransit', 'Delivered'] })
    let failFirst = true
    rx.routes.set(s.path, (r) => {
      if (bodyOf(r).data.packageId === 'pkg_order_a' && bodyOf(r).data.sequence === 1 && failFirst) {
        failFirst = false
        return { status: 500 }
      }
      return { status: 200 }
    })
    await s.send('Received', { packageId: 'pkg_order_a' })
    await s.send('InTransit', { packageId: 'pkg_order_a' })
    await s.send('Delivered', { packageId: 'pkg_order_a' })
    await s.send('Received', { packageId: 'pkg_order_b' })
    await run()
    const seen = () => s.got().map((r) => `${bodyOf(r).data.packageId}#${bodyOf(r).data.sequence}`)
    // Every delivery was attempted at once; the first of pkg_order_a failed and alone waits for its retry.
    expect([...seen()].sort()).toEqual(['pkg_order_a#1', 'pkg_order_a#2', 'pkg_order_a#3', 'pkg_order_b#1'])
    const pending = await s.h.deliveries(s.cfg.webHookConfigID, 'pending')
    expect(pending.map((d) => [d.sequence, d.attempts])).toEqual([[1, 1]])
    expect((await s.h.deliveries(s.cfg.webHookConfigID, 'delivered')).map((d) => d.sequence).sort()).toEqual([1, 2, 3])

    // The retry arrives after the later events: the receiver's recipe (ignore a sequence older than
    // the last seen for the package) tells it this one is stale.
    t.clock.advance(10_000)
    await run()
    expect(
      seen()
        .filter((x) => x.startsWith('pkg_order_a'))
        .at(-1),
    ).toBe('pkg_order_a#1')
    expect(seen()).toHaveLength(5)
    expect(await s.h.deliveries(s.cfg.webHookConfigID, 'pending')).toEqual([])
  })

  it('sign with both secrets for 24 hours after a rotation', async () => {
    const s = await setup()
    const rotated = await s.h.ok('POST', `/webhookConfig/${s.cfg.webHookConfigID}/rotateSecret`)
    await s.send('Received')
    await run()
    const req = s.got()[0]!
    expect((req.headers['webhook-signature'] as string).split(' ')).toHaveLength(2)
    expect(verify(s.cfg.signingSecret, req, t.clock.now())).toBeTruthy()
    expect(verify(rotated.signingSecret, req, t.clock.now())).toBeTruthy()

    t.clock.advance(24 * HOUR)
    await s.send('Delivered')
    await run()
    const later = s.got()[1]!
    expect((later.headers['webhook-signature'] as string).split(' ')).toHaveLength(1)
    expect(verify(rotated.signingSecret, later, t.clock.now())).toBeTruthy()
    expect(() => verify(s.cfg.signingSecret, later, t.clock.now())).toThrow()
  })

  it('include a signed test ping through the same path', async () => {
    const s = await setup()
    const ping = await s.h.ok('POST', `/webhookConfig/${s.cfg.webHookConfigID}/test`)
    expect(ping).toMatchObject({
      deliveryId: expect.stringMatching(/^dlv_/),
      eventName: 'Ping',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: t.clock.now().toISOString(),
    })
    await run()
    const body = verify(s.cfg.signingSecret, s.got()[0]!, t.clock.now()) as Record<string, unknown>
    expect(body).toMatchObject({
      eventId: ping.eventId,
      eventName: 'Ping',
      type: 'tracking',
      webHookConfigID: s.cfg.webHookConfigID,
      data: { message: expect.any(String) },
    })
    expect((await s.h.deliveries(s.cfg.webHookConfigID))[0]).toMatchObject({
      deliveryId: ping.deliveryId,
      status: 'delivered',
      attempts: 1,
      lastStatusCode: 200,
    })

    await s.h.ok('PUT', `/webhookConfig/${s.cfg.webHookConfigID}`, configBody(rx.url(s.path), { status: 'in-active' }))
    const refused = await s.h.call('POST', `/webhookConfig/${s.cfg.webHookConfigID}/test`)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().errors[0].additionalCode).toBe('WHK-4090')
  })
})
