import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NOTIFICATION_KINDS, webhookEventOf } from '../../src/notifications/model/kinds.js'
import { eventsFor, type Transition } from '../../src/packages/model/events.js'
import { PACKAGE_STATUSES } from '../../src/packages/api/schemas.js'
import { eventNames } from '../../src/events/catalogue.js'
import type { TestApp } from '../support/build-test-app.js'
import { api } from '../support/factories.js'
import { configBody, hooks, startWebhookTest, stopWebhookTest } from './support/helpers.js'
import type { Receiver } from './support/receiver.js'

// The tracking variant speaks Pitney Bowes' event names (PB-REFERENCE §5.1) beside ours. Each
// event end to end: a configuration subscribes to it alone, packages change through the API, and
// the receiver gets exactly the notifications of that event.

let t: TestApp
let rx: Receiver
beforeAll(
  async () => ({ t, rx } = await startWebhookTest({ LOCKER_PICKUP_REMINDER_HOURS: '24', LOCKER_EXPIRY_DAYS: '2' })),
)
afterAll(() => stopWebhookTest(t, rx))

const DAY = 24 * 3600_000
let paths = 0

/** A subscription with a mailroom, and one tracking configuration subscribed to `eventName` only. */
async function subscribed(eventName: string) {
  const client = await t.newClient()
  const a = api(t, client)
  const m = await a.mailroom()
  const h = hooks(t, client)
  const path = `/pb${++paths}-${eventName}`
  const cfg = await h.create(configBody(rx.url(path), { events: [eventName] }))
  let n = 0
  const created: string[] = []
  return {
    client,
    a,
    m,
    h,
    cfg,
    async add(status = 'RECEIVED', extra: Record<string, unknown> = {}): Promise<string> {
      const pkg = { trackingNumber: `PBEV${paths}X${++n}`, receiver: { contactId: m.receiverId }, ...extra }
      const { packageId } = await a.ok('POST', '/api/v1/packages', {
        package: pkg,
        lastActivity: {
          status,
          location: {
            inboundSiteId: m.shelfId,
            ...(status === 'IN_LOCKER' ? { lockerBank: 'North', lockerUnit: '7' } : {}),
          },
        },
      })
      created.push(packageId)
      return packageId
    },
    async update(packageId: string, status?: string, pkg: Record<string, unknown> = {}) {
      return a.ok('PUT', `/api/v1/packages/${packageId}`, {
        package: pkg,
        ...(status
          ? {
              lastActivity: {
                status,
                ...(status === 'IN_LOCKER' ? { location: { lockerBank: 'North', lockerUnit: '7' } } : {}),
              },
            }
          : {}),
      })
    },
    /**
     * What the receiver got, after the worker ran: [packageId, eventName, previousStatus → currentStatus],
     * by package in the order they were added (packages are sent in parallel), then by sequence.
     */
    async received(): Promise<Array<[string, string, string]>> {
      for (let i = 0; i < 5; i++) await t.ctx.webhooks.runOnce()
      return rx
        .at(path)
        .map((r) => JSON.parse(r.body))
        .sort(
          (x, y) =>
            created.indexOf(x.data.packageId) - created.indexOf(y.data.packageId) || x.data.sequence - y.data.sequence,
        )
        .map((b) => [b.data.packageId, b.eventName, `${b.data.previousStatus ?? '∅'}→${b.data.currentStatus}`])
    },
  }
}

describe('the tracking events, end to end', () => {
  it('Manifest: an expected package announced (added IN_TRANSIT), once', async () => {
    const s = await subscribed('Manifest')
    const announced = await s.add('IN_TRANSIT')
    await s.update(announced, 'RECEIVED')
    await s.add('RECEIVED')
    expect(await s.received()).toEqual([[announced, 'Manifest', '∅→IN_TRANSIT']])
  })

  it('Acceptance: the first arrival at a site, for an announced package and for one added as it arrives; not again', async () => {
    const s = await subscribed('Acceptance')
    const announced = await s.add('IN_TRANSIT')
    expect((await s.a.ok('GET', `/api/v1/packages/${announced}?type=DETAILED`)).receiveClerk).toBeUndefined()
    await s.update(announced, 'IN_TRANSIT')
    await s.update(announced, 'RECEIVED')
    // receiveClerk is who received it: set at the arrival, not at the announcement.
    expect((await s.a.ok('GET', `/api/v1/packages/${announced}?type=DETAILED`)).receiveClerk).toBe(s.client.clientId)
    await s.update(announced, 'IN_TRANSIT')
    await s.update(announced, 'RECEIVED')
    const walkIn = await s.add('RECEIVED')
    const notArrived = await s.add('IN_TRANSIT')
    await s.a.ok('PATCH', `/api/v1/packages/${notArrived}/archive`, {})
    expect(await s.received()).toEqual([
      [announced, 'Acceptance', 'IN_TRANSIT→RECEIVED'],
      [walkIn, 'Acceptance', '∅→RECEIVED'],
    ])
  })

  it('InTransit: IN_TRANSIT reached after the add', async () => {
    const s = await subscribed('InTransit')
    const id = await s.add()
    await s.update(id, 'IN_TRANSIT')
    await s.update(id, 'IN_TRANSIT', { comment: 'still moving' })
    expect(await s.received()).toEqual([[id, 'InTransit', 'RECEIVED→IN_TRANSIT']])
  })

  it('DeliveryAttempt: back from OUT_FOR_DELIVERY undelivered, or out for delivery again', async () => {
    const s = await subscribed('DeliveryAttempt')
    const id = await s.add()
    await s.update(id, 'OUT_FOR_DELIVERY')
    await s.update(id, 'RECEIVED')
    await s.update(id, 'OUT_FOR_DELIVERY')
    await s.update(id, 'OUT_FOR_DELIVERY')
    await s.update(id, 'DELIVERED')
    expect(await s.received()).toEqual([
      [id, 'DeliveryAttempt', 'OUT_FOR_DELIVERY→RECEIVED'],
      [id, 'DeliveryAttempt', 'OUT_FOR_DELIVERY→OUT_FOR_DELIVERY'],
    ])
  })

  it.each([
    ['OutForDelivery', 'OUT_FOR_DELIVERY'],
    ['Delivered', 'DELIVERED'],
    ['ReturnToSender', 'RETURNED_TO_SENDER'],
    ['Forwarded', 'FORWARDED'],
    ['PickedUp', 'PICKED_UP'],
    ['Received', 'RECEIVED'],
  ])('%s: status %s reached', async (eventName, status) => {
    const s = await subscribed(eventName)
    const id = await s.add('IN_TRANSIT')
    await s.update(id, status)
    await s.update(id, undefined, { comment: 'no status change' })
    expect(await s.received()).toEqual([[id, eventName, `IN_TRANSIT→${status}`]])
  })

  it('Exception: status DAMAGED, or damaged set by another change', async () => {
    const s = await subscribed('Exception')
    const one = await s.add()
    await s.update(one, 'DAMAGED')
    const two = await s.add()
    await s.update(two, undefined, { damaged: true })
    await s.update(two, undefined, { damaged: true, comment: 'still damaged' })
    expect(await s.received()).toEqual([
      [one, 'Exception', 'RECEIVED→DAMAGED'],
      [two, 'Exception', 'RECEIVED→RECEIVED'],
    ])
  })

  it('ReadyForPickup: READY_FOR_PICKUP or IN_LOCKER reached', async () => {
    const s = await subscribed('ReadyForPickup')
    const shelf = await s.add()
    await s.update(shelf, 'READY_FOR_PICKUP')
    const locker = await s.add()
    await s.update(locker, 'IN_LOCKER')
    expect(await s.received()).toEqual([
      [shelf, 'ReadyForPickup', 'RECEIVED→READY_FOR_PICKUP'],
      [locker, 'ReadyForPickup', 'RECEIVED→IN_LOCKER'],
    ])
  })

  it('PickupMissed: the locker stay expired with its reminder unanswered, once', async () => {
    const s = await subscribed('PickupMissed')
    const missed = await s.add('IN_LOCKER')
    const collected = await s.add('IN_LOCKER')
    await s.update(collected, 'PICKED_UP')
    t.clock.advance(DAY)
    expect(await s.received()).toEqual([])
    t.clock.advance(DAY + 1000)
    expect(await s.received()).toEqual([[missed, 'PickupMissed', 'IN_LOCKER→IN_LOCKER']])
    t.clock.advance(3 * DAY)
    expect(await s.received()).toHaveLength(1)
  })

  it('Archived and Updated', async () => {
    const archived = await subscribed('Archived')
    const id = await archived.add()
    await archived.a.ok('PATCH', `/api/v1/packages/${id}/archive`, {})
    expect(await archived.received()).toEqual([[id, 'Archived', 'RECEIVED→ARCHIVED']])

    const updated = await subscribed('Updated')
    const other = await updated.add()
    await updated.update(other, undefined, { comment: 'moved to bin 3' })
    await updated.update(other, 'IN_TRANSIT')
    expect(await updated.received()).toEqual([[other, 'Updated', 'RECEIVED→RECEIVED']])
  })

  it('each subscribed event leaves a delivered delivery row with its name', async () => {
    const s = await subscribed('Acceptance')
    await s.add()
    await s.received()
    expect(await s.h.deliveries(s.cfg.webHookConfigID)).toEqual([
      expect.objectContaining({ eventName: 'Acceptance', status: 'delivered' }),
    ])
  })

  it('Create Webhook (§5.2): the documented request (with the url it leaves out) is a 200 with webHookConfigID', async () => {
    const client = await t.newClient()
    const example =
      JSON.parse(`{"name": "webhook1", "type": "tracking", "events": ["Manifest","InTransit","Delivered"], "timeOut": 5,
 "status": "active", "authParams": {"authType": "custom", "apiKey": "JsuG7jk", "headerName": "webhook1"}}`)
    const res = await hooks(t, client).call('POST', '/webhookConfig', { ...example, url: rx.url('/pb-create') })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({
      webHookConfigID: expect.any(String),
      name: 'webhook1',
      type: 'tracking',
      events: ['Manifest', 'InTransit', 'Delivered'],
      timeOut: 5,
      status: 'active',
      authParams: { authType: 'custom', headerName: 'webhook1', apiKey: expect.stringMatching(/^\*\*\*\*/) },
    })
    // in-active is PB's spelling too.
    const off = await hooks(t, client).call('POST', '/webhookConfig', {
      ...example,
      status: 'in-active',
      url: rx.url('/pb-create'),
    })
    expect(off.statusCode, off.body).toBe(200)
  })

  it('GET /api/v1/events documents the change behind each event, in the catalogue and in the OpenAPI description', async () => {
    const client = await t.newClient()
    const { events } = await hooks(t, client).ok('GET', '/events')
    for (const e of events as Array<{ eventName: string; description: string }>)
      expect(e.description.length, e.eventName).toBeGreaterThan(20)
    const doc = (await t.inject({ method: 'GET', url: '/openapi.json' })).json()
    const description = doc.paths['/webhooks/tracking/api/v1/events'].get.description as string
    for (const name of eventNames('tracking')) expect(description).toContain(`\`${name}\`:`)
  })
})

describe('the event catalogue is the one home', () => {
  // Every transition a change can make (including ones the service refuses today), exhaustively.
  const previous = [null, ...PACKAGE_STATUSES]
  const lockers = [
    { bank: null, unit: null },
    { bank: 'A', unit: '1' },
    { bank: 'A', unit: '2' },
  ]
  const transitions: Transition[] = previous.flatMap((previousStatus) =>
    PACKAGE_STATUSES.flatMap((status) =>
      [false, true].flatMap((wasAtSite) =>
        [false, true].flatMap((wasDamaged) =>
          [false, true].flatMap((damaged) =>
            lockers.flatMap((previousLocker) =>
              lockers.map((locker) => ({
                previousStatus,
                status,
                wasAtSite,
                wasDamaged,
                damaged,
                previousLocker,
                locker,
              })),
            ),
          ),
        ),
      ),
    ),
  )

  it("every event a package change emits is in its variant's catalogue", () => {
    for (const tr of transitions) {
      for (const e of eventsFor(tr)) expect(eventNames(e.variant), JSON.stringify(tr)).toContain(e.eventName)
    }
  })

  it('every catalogue event has a trigger: a package change, the locker jobs (PickupReminder, Expired, PickupMissed), the scan-issues queue, a departure, a recipient notification, a failed one, or a shelf audit', () => {
    const emitted = new Set(transitions.flatMap((tr) => eventsFor(tr).map((e) => `${e.variant}.${e.eventName}`)))
    for (const job of ['locker.PickupReminder', 'locker.Expired', 'tracking.PickupMissed']) emitted.add(job)
    // src/scanissues (opened and settled: test/scanissues), src/directory/departures.ts (test/directory),
    // a failed notification's outcome and a shelf audit (test/exceptions).
    for (const other of [
      'tracking.ScanIssueOpened',
      'tracking.ScanIssueSettled',
      'tracking.RecipientDeparted',
      'tracking.NotificationFailed',
      'tracking.MissingFromShelf',
    ])
      emitted.add(other)
    for (const kind of NOTIFICATION_KINDS) emitted.add(`tracking.${webhookEventOf(kind)}`)
    const catalogue = (['tracking', 'locker'] as const).flatMap((v) => eventNames(v).map((name) => `${v}.${name}`))
    expect([...emitted].sort()).toEqual(catalogue.sort())
  })

  it('each change emits at least one tracking event, each name at most once', () => {
    for (const tr of transitions) {
      const tracking = eventsFor(tr)
        .filter((e) => e.variant === 'tracking')
        .map((e) => e.eventName)
      expect(tracking.length).toBeGreaterThan(0)
      expect(new Set(tracking).size).toBe(tracking.length)
    }
  })
})
