import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inTransaction } from '../../src/platform/db/transaction.js'
import { enqueueEvents } from '../../src/events/outbox.js'
import { createJobs, PURGE_EVERY_MS, SWEEP_SETTLE_MS } from '../../src/webhooks/jobs/jobs.js'
import { createWebhooks } from '../../src/webhooks/module.js'
import { type TestApp, type TestClient } from '../support/build-test-app.js'
import { configBody, emit, hooks, HOUR, startWebhookTest, stopWebhookTest } from './support/helpers.js'
import type { Receiver } from './support/receiver.js'

// The scheduled jobs: locker PickupReminder / Expired once per stay, and the retention purge.
let t: TestApp
let rx: Receiver
const DAY = 24 * HOUR
beforeAll(
  async () =>
    ({ t, rx } = await startWebhookTest({
      LOCKER_PICKUP_REMINDER_HOURS: '24',
      LOCKER_EXPIRY_DAYS: '7',
      WEBHOOK_RETENTION_DAYS: '30',
    })),
)
afterAll(() => stopWebhookTest(t, rx))

let n = 0
/** A package row as the packages service leaves it, plus the locker events it would write. */
async function lockerPackage(subId: string): Promise<string> {
  const packageId = `pkg_locker_${++n}`
  const now = t.clock.now()
  await t.ctx.db
    .insertInto('packages')
    .values({
      package_id: packageId,
      sub_id: subId,
      tracking_number: `LK${n}`,
      asset_type: 'PACKAGE',
      current_status: 'IN_LOCKER',
      damaged: false,
      archived: false,
      custom_fields: '[]',
      user_name: 'test',
      locker_bank: 'A',
      locker_unit: '1',
      version: 1,
      activity_count: 1,
      event_count: 0,
      created_at: now,
      updated_at: now,
    })
    .execute()
  await packageEvent(subId, packageId, 'Deposited', 'IN_LOCKER')
  return packageId
}
async function packageEvent(
  subId: string,
  packageId: string,
  eventName: string,
  status: string,
  unit = '1',
): Promise<void> {
  await inTransaction(t.ctx.db, async (trx) => {
    const { event_count: sequence } = await trx
      .updateTable('packages')
      .set((eb) => ({ event_count: eb('event_count', '+', 1) }))
      .set({ current_status: status, locker_unit: unit })
      .where('package_id', '=', packageId)
      .returning('event_count')
      .executeTakeFirstOrThrow()
    await enqueueEvents(trx, [
      {
        eventId: `evt_${packageId}_${sequence}`,
        subId,
        packageId,
        variant: 'locker',
        eventName,
        sequence,
        occurredAt: t.clock.now(),
        data: { packageId, sequence, currentStatus: status, lockerBank: 'A', lockerUnit: unit },
      },
    ])
  })
}
async function lockerEvents(packageId: string) {
  return (
    await t.ctx.db
      .selectFrom('package_events')
      .select(['event_name', 'sequence', 'data'])
      .where('package_id', '=', packageId)
      .where('variant', '=', 'locker')
      .orderBy('sequence')
      .execute()
  ).map((e) => `${e.sequence}:${e.event_name}`)
}

let me: TestClient
let path: string
beforeAll(async () => {
  me = await t.newClient()
  path = '/locker'
  await hooks(t, me, 'locker').create(
    configBody(rx.url(path), { type: 'locker', events: ['Deposited', 'PickedUp', 'PickupReminder', 'Expired'] }),
  )
})

describe('locker jobs', () => {
  it("remind after 24 hours and expire after 7 days, once each per stay, in the package's sequence", async () => {
    const pkg = await lockerPackage(me.subId)
    await t.ctx.webhooks.runOnce()
    t.clock.advance(DAY - 1000)
    expect((await t.ctx.webhooks.runOnce()).emitted).toBe(0)
    t.clock.advance(1000)
    expect((await t.ctx.webhooks.runOnce()).emitted).toBe(1)
    t.clock.advance(HOUR)
    expect((await t.ctx.webhooks.runOnce()).emitted).toBe(0)
    t.clock.advance(6 * DAY)
    await t.ctx.webhooks.runOnce()
    t.clock.advance(DAY)
    await t.ctx.webhooks.runOnce()
    expect(await lockerEvents(pkg)).toEqual(['1:Deposited', '2:PickupReminder', '3:Expired'])
    const pkgRow = await t.ctx.db
      .selectFrom('packages')
      .select(['event_count', 'version'])
      .where('package_id', '=', pkg)
      .executeTakeFirstOrThrow()
    // The expiry is also the tracking variant's PickupMissed, next in the package's sequence.
    const tracking = await t.ctx.db
      .selectFrom('package_events')
      .select(['event_name', 'sequence'])
      .where('package_id', '=', pkg)
      .where('variant', '=', 'tracking')
      .execute()
    expect(tracking).toEqual([{ event_name: 'PickupMissed', sequence: 4 }])
    expect(pkgRow).toEqual({ event_count: 4, version: 1 })

    const sent = rx
      .at(path)
      .map((r) => JSON.parse(r.body))
      .filter((b) => b.data.packageId === pkg)
    expect(sent.map((b) => [b.eventName, b.data.sequence])).toEqual([
      ['Deposited', 1],
      ['PickupReminder', 2],
      ['Expired', 3],
    ])
    expect(sent[1].data).toMatchObject({
      packageId: pkg,
      currentStatus: 'IN_LOCKER',
      lockerBank: 'A',
      lockerUnit: '1',
      depositedAt: expect.any(String),
    })

    // Moved to another unit: a new stay, reminded again.
    await packageEvent(me.subId, pkg, 'Deposited', 'IN_LOCKER', '2')
    t.clock.advance(DAY)
    await t.ctx.webhooks.runOnce()
    expect((await lockerEvents(pkg)).slice(3)).toEqual(['5:Deposited', '6:PickupReminder'])
  })

  it('say nothing of a package collected before the reminder is due', async () => {
    const pkg = await lockerPackage(me.subId)
    t.clock.advance(HOUR)
    await packageEvent(me.subId, pkg, 'PickedUp', 'PICKED_UP')
    t.clock.advance(8 * DAY)
    await t.ctx.webhooks.runOnce()
    expect(await lockerEvents(pkg)).toEqual(['1:Deposited', '2:PickedUp'])
  })

  it('write each reminder once when several workers run the jobs at the same time', async () => {
    const pkgs = await Promise.all(Array.from({ length: 5 }, () => lockerPackage(me.subId)))
    t.clock.advance(DAY)
    const workers = [0, 1, 2].map(() =>
      createWebhooks({
        db: t.ctx.db,
        clock: t.clock,
        ids: t.ctx.ids,
        config: t.config,
        sealKey: t.ctx.secrets.webhookKey,
      }),
    )
    try {
      const steps = await Promise.all(workers.map((w) => w.runOnce()))
      expect(steps.reduce((sum, s) => sum + s.emitted, 0)).toBe(5)
    } finally {
      await Promise.all(workers.map((w) => w.close()))
    }
    for (const pkg of pkgs) expect(await lockerEvents(pkg)).toEqual(['1:Deposited', '2:PickupReminder'])
  })
})

describe('retention', () => {
  it('purges finished deliveries and their attempts after the retention period, and deleted configurations with them', async () => {
    const client = await t.newClient()
    const h = hooks(t, client)
    const cfg = await h.create(configBody(rx.url('/retention')))
    const ping = await h.ok('POST', `/webhookConfig/${cfg.webHookConfigID}/test`)
    await t.ctx.webhooks.runOnce()
    expect(await h.attempts(cfg.webHookConfigID, ping.deliveryId)).toHaveLength(1)
    await h.ok('DELETE', `/webhookConfig/${cfg.webHookConfigID}`)

    t.clock.advance(30 * DAY - HOUR)
    await t.ctx.webhooks.runOnce()
    const count = async (table: 'webhook_deliveries' | 'webhook_attempts') =>
      (await t.ctx.db.selectFrom(table).select('delivery_id').where('delivery_id', '=', ping.deliveryId).execute())
        .length
    expect(await count('webhook_deliveries')).toBe(1)
    t.clock.advance(2 * HOUR)
    await t.ctx.webhooks.runOnce()
    expect(await count('webhook_deliveries')).toBe(0)
    expect(await count('webhook_attempts')).toBe(0)
    expect(
      await t.ctx.db
        .selectFrom('webhook_configs')
        .select('config_id')
        .where('config_id', '=', cfg.webHookConfigID)
        .execute(),
    ).toEqual([])
  })
})

describe('retention purge', () => {
  /** `count` deliveries finished 31 days ago, two attempts each, to a configuration of a new client. */
  async function oldDeliveries(count: number): Promise<string> {
    const client = await t.newClient()
    const { webHookConfigID: configId } = await hooks(t, client).create(configBody(rx.url('/purge')))
    const at = new Date(t.clock.now().getTime() - 31 * DAY)
    const rows = Array.from({ length: count }, (_, i) => ({
      delivery_id: `dlv_old_${configId}_${i}`,
      sub_id: client.subId,
      config_id: configId,
      event_id: `evt_old_${configId}_${i}`,
      event_name: 'Received',
      package_id: `pkg_old_${i}`,
      sequence: 1,
      occurred_at: at,
      status: i % 2 ? ('delivered' as const) : ('failed' as const),
      attempts: 2,
      next_attempt_at: at,
      give_up_at: at,
      created_at: at,
      updated_at: at,
    }))
    await t.ctx.db.insertInto('webhook_deliveries').values(rows).execute()
    await t.ctx.db
      .insertInto('webhook_attempts')
      .values(
        rows.flatMap((r) =>
          [1, 2].map((n) => ({
            attempt_id: `att_${r.delivery_id}_${n}`,
            delivery_id: r.delivery_id,
            sub_id: r.sub_id,
            config_id: configId,
            attempt_no: n,
            started_at: at,
            succeeded: n === 2,
          })),
        ),
      )
      .execute()
    return configId
  }
  const left = async (configId: string) => ({
    deliveries: (
      await t.ctx.db.selectFrom('webhook_deliveries').select('delivery_id').where('config_id', '=', configId).execute()
    ).length,
    attempts: (
      await t.ctx.db.selectFrom('webhook_attempts').select('attempt_id').where('config_id', '=', configId).execute()
    ).length,
  })
  const jobs = (opts: { purgeBatch: number; purgeBudgetMs?: number }) =>
    createJobs({
      db: t.ctx.db,
      clock: t.clock,
      ids: t.ctx.ids,
      lockerReminderHours: 24,
      lockerExpiryDays: 7,
      retentionDays: 30,
      ...opts,
    })

  it('deletes in short batches until nothing old is left, not a fixed number an hour', async () => {
    const configId = await oldDeliveries(25)
    expect(await jobs({ purgeBatch: 10 }).purge()).toBe(25)
    expect(await left(configId)).toEqual({ deliveries: 0, attempts: 0 })
  })

  it('stops when its time is up and goes on at its next run, a minute later', async () => {
    const configId = await oldDeliveries(25)
    const j = jobs({ purgeBatch: 10, purgeBudgetMs: 0 })
    expect(await j.purge()).toBe(10)
    expect(await j.purge()).toBe(0)
    expect((await left(configId)).deliveries).toBe(15)
    t.clock.advance(PURGE_EVERY_MS)
    expect(await j.purge()).toBe(10)
    t.clock.advance(PURGE_EVERY_MS)
    expect(await j.purge()).toBe(5)
    expect(await left(configId)).toEqual({ deliveries: 0, attempts: 0 })
  })

  it('stops between batches when the worker stops', async () => {
    await oldDeliveries(25)
    const stop = new AbortController()
    stop.abort()
    expect(await jobs({ purgeBatch: 10 }).purge(stop.signal)).toBe(10)
  })

  it('keeps what is younger than the retention period, and every pending delivery', async () => {
    const configId = await oldDeliveries(4)
    await t.ctx.db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending' })
      .where('delivery_id', '=', `dlv_old_${configId}_0`)
      .execute()
    await t.ctx.db
      .updateTable('webhook_deliveries')
      .set({ updated_at: t.clock.now() })
      .where('delivery_id', '=', `dlv_old_${configId}_1`)
      .execute()
    await jobs({ purgeBatch: 10 }).purge()
    expect(await left(configId)).toEqual({ deliveries: 2, attempts: 4 })
  })
})

describe('sweep of unsendable deliveries', () => {
  async function failingConfig() {
    const client = await t.newClient()
    const h = hooks(t, client)
    const path = `/sweep-${++n}`
    rx.routes.set(path, () => ({ status: 500 }))
    const { webHookConfigID: id } = await h.create(configBody(rx.url(path)))
    await emit(t, client.subId, { eventName: 'Received' })
    await t.ctx.webhooks.runOnce()
    const row = () =>
      t.ctx.db
        .selectFrom('webhook_deliveries')
        .select(['delivery_id', 'status', 'last_error', 'locked_until'])
        .where('config_id', '=', id)
        .executeTakeFirstOrThrow()
    const config = () =>
      t.ctx.db
        .selectFrom('webhook_configs')
        .select(['sweep_requested_at', 'failing_since'])
        .where('config_id', '=', id)
        .executeTakeFirstOrThrow()
    return { h, id, path, client, row, config }
  }
  /** As if another worker were sending it right now. */
  const inFlight = (deliveryId: string) =>
    t.ctx.db
      .updateTable('webhook_deliveries')
      .set({ locked_until: new Date(t.clock.now().getTime() + 60_000), locked_by: 'another-worker' })
      .where('delivery_id', '=', deliveryId)
      .execute()

  it('closes a delivery that was in flight when its configuration was set in-active, then forgets the configuration', async () => {
    const s = await failingConfig()
    const { delivery_id: deliveryId } = await s.row()
    await inFlight(deliveryId)
    await s.h.ok('PUT', `/webhookConfig/${s.id}`, configBody(rx.url(s.path), { status: 'in-active' }))
    expect(await s.row()).toMatchObject({ status: 'pending' })
    expect((await s.config()).sweep_requested_at).toEqual(t.clock.now())

    await t.ctx.webhooks.runOnce()
    expect(await s.row()).toMatchObject({ status: 'pending' })
    // The other worker died; its lease ran out.
    t.clock.advance(61_000)
    await t.ctx.webhooks.runOnce()
    expect(await s.row()).toMatchObject({ status: 'failed', last_error: 'configuration in-active', locked_until: null })
    // Nothing left to retry: no streak either. The request stays until late writers have had their chance.
    expect(await s.config()).toMatchObject({ failing_since: null, sweep_requested_at: expect.any(Date) })
    t.clock.advance(SWEEP_SETTLE_MS)
    await t.ctx.webhooks.runOnce()
    expect((await s.config()).sweep_requested_at).toBeNull()
  })

  it('cancels a delivery written after its configuration was deleted (a fan-out that read it before)', async () => {
    const s = await failingConfig()
    await s.h.ok('DELETE', `/webhookConfig/${s.id}`)
    expect(await s.row()).toMatchObject({ status: 'cancelled' })
    const now = t.clock.now()
    await t.ctx.db
      .insertInto('webhook_deliveries')
      .values({
        delivery_id: `dlv_late_${s.id}`,
        sub_id: s.client.subId,
        config_id: s.id,
        event_id: `evt_late_${s.id}`,
        event_name: 'Received',
        package_id: 'pkg_late',
        sequence: 1,
        occurred_at: now,
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        give_up_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute()
    await t.ctx.webhooks.runOnce()
    const late = await t.ctx.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'last_error'])
      .where('delivery_id', '=', `dlv_late_${s.id}`)
      .executeTakeFirstOrThrow()
    expect(late).toEqual({ status: 'cancelled', last_error: 'configuration deleted' })
  })

  it('fails the in-flight delivery of an event the configuration dropped, and leaves the rest alone', async () => {
    const s = await failingConfig()
    const { delivery_id: deliveryId } = await s.row()
    await inFlight(deliveryId)
    await s.h.ok('PUT', `/webhookConfig/${s.id}`, configBody(rx.url(s.path), { events: ['Delivered'] }))
    await emit(t, s.client.subId, { eventName: 'Delivered' })
    t.clock.advance(61_000)
    await t.ctx.webhooks.runOnce()
    const byEvent = Object.fromEntries(
      (
        await t.ctx.db
          .selectFrom('webhook_deliveries')
          .select(['event_name', 'status', 'last_error'])
          .where('config_id', '=', s.id)
          .execute()
      ).map((r) => [r.event_name, r]),
    )
    expect(byEvent.Received).toMatchObject({ status: 'failed', last_error: 'event no longer subscribed' })
    expect(byEvent.Delivered).toMatchObject({ status: 'pending', last_error: 'HTTP 500' })
    t.clock.advance(SWEEP_SETTLE_MS)
    await t.ctx.webhooks.runOnce()
    expect(await s.config()).toMatchObject({ sweep_requested_at: null, failing_since: expect.any(Date) })
  })
})
