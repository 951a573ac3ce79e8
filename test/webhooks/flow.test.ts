import { afterAll, beforeAll, expect, it } from 'vitest'
import type { TestApp } from '../support/build-test-app.js'
import { api, trackingNumber } from '../support/factories.js'
import { configBody, hooks, HOUR, startWebhookTest, stopWebhookTest, verify } from './support/helpers.js'
import type { Receiver } from './support/receiver.js'

// Receive → deliver, across domains: packages changed through the API reach both webhook
// variants signed, each once, with the contract's data; the locker reminder comes from the jobs.
let t: TestApp
let rx: Receiver
beforeAll(async () => ({ t, rx } = await startWebhookTest()))
afterAll(() => stopWebhookTest(t, rx))

it('follows a package from intake through a locker to pick-up on both webhook variants', async () => {
  const me = await t.newClient()
  const a = api(t, me)
  const m = await a.mailroom()
  const tracking = await hooks(t, me, 'tracking').create(
    configBody(rx.url('/tracking'), { events: ['Received', 'OutForDelivery', 'PickedUp'] }),
  )
  const locker = await hooks(t, me, 'locker').create(
    configBody(rx.url('/locker'), { type: 'locker', events: ['Deposited', 'PickupReminder', 'PickedUp'] }),
  )

  const tn = trackingNumber()
  const { packageId } = await a.ok('POST', '/api/v1/packages', {
    package: { trackingNumber: tn, receiver: { contactId: m.receiverId } },
    lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.shelfId } },
  })
  await a.ok('PUT', `/api/v1/packages/${packageId}`, { package: {}, lastActivity: { status: 'OUT_FOR_DELIVERY' } })
  await a.ok('PUT', `/api/v1/packages/${packageId}`, {
    package: {},
    lastActivity: { status: 'IN_LOCKER', location: { lockerBank: 'Bank 1', lockerUnit: '07' } },
  })
  await t.ctx.webhooks.runOnce()
  t.clock.advance(24 * HOUR)
  await t.ctx.webhooks.runOnce()
  // A day later: a fresh access token for the same client.
  const { access_token: token } = await t.ctx.tokens.issueToken({
    clientId: me.clientId,
    subId: me.subId,
    status: 'active',
  })
  await api(t, { ...me, auth: { authorization: `Bearer ${token}` } }).ok('PUT', `/api/v1/packages/${packageId}`, {
    package: {},
    lastActivity: { status: 'PICKED_UP' },
  })
  await t.ctx.webhooks.runOnce()

  // Each verified as its receiver did, on arrival. Sequences: 1 is Acceptance and 4 the tracking ReadyForPickup of IN_LOCKER (not subscribed).
  // Delivery is unordered (at least once): the receiver orders a package's events by their sequence.
  const bodies = (path: string, secret: string) =>
    rx
      .at(path)
      .map(
        (r) =>
          verify(secret, r, new Date(Number(r.headers['webhook-timestamp']) * 1000)) as {
            eventName: string
            type: string
            data: Record<string, unknown>
          },
      )
      .sort((a, b) => Number(a.data.sequence) - Number(b.data.sequence))
  const trackingBodies = bodies('/tracking', tracking.signingSecret)
  const lockerBodies = bodies('/locker', locker.signingSecret)
  expect(trackingBodies.map((b) => [b.eventName, b.data.sequence])).toEqual([
    ['Received', 2],
    ['OutForDelivery', 3],
    ['PickedUp', 7],
  ])
  expect(lockerBodies.map((b) => [b.eventName, b.data.sequence])).toEqual([
    ['Deposited', 5],
    ['PickupReminder', 6],
    ['PickedUp', 8],
  ])
  expect(trackingBodies.every((b) => b.type === 'tracking')).toBe(true)
  expect(lockerBodies.every((b) => b.type === 'locker')).toBe(true)

  expect(trackingBodies[0]!.data).toMatchObject({
    packageId,
    trackingNumber: tn,
    currentStatus: 'RECEIVED',
    previousStatus: null,
    sequence: 2,
    currentLocation: { inboundSiteId: m.shelfId },
    receiver: { contactId: m.receiverId, name: 'Ada Lovelace' },
  })
  expect(lockerBodies[0]!.data).toMatchObject({
    packageId,
    currentStatus: 'IN_LOCKER',
    previousStatus: 'OUT_FOR_DELIVERY',
    lockerBank: 'Bank 1',
    lockerUnit: '07',
  })
  expect(lockerBodies[1]!.data).toMatchObject({
    packageId,
    currentStatus: 'IN_LOCKER',
    lockerBank: 'Bank 1',
    lockerUnit: '07',
    depositedAt: expect.any(String),
  })
  expect(lockerBodies[2]!.data).toMatchObject({ currentStatus: 'PICKED_UP', previousStatus: 'IN_LOCKER' })
})
