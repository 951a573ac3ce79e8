import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inTransaction } from '../../src/db/transaction.js'
import { enqueueEvents } from '../../src/webhooks/outbox.js'
import { createWebhooks } from '../../src/webhooks/webhooks.module.js'
import { buildTestApp, type TestApp, type TestClient } from '../support/build-test-app.js'
import { configBody, hooks, HOUR } from './support/helpers.js'
import { Receiver } from './support/receiver.js'

// The scheduled jobs: locker PickupReminder / Expired once per stay, and the retention purge.
let t: TestApp
let rx: Receiver
const DAY = 24 * HOUR
beforeAll(async () => {
  t = await buildTestApp({ MAILROOM_WEBHOOK_ALLOW_HTTP: 'true', MAILROOM_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8', LOCKER_PICKUP_REMINDER_HOURS: '24', LOCKER_EXPIRY_DAYS: '7', WEBHOOK_RETENTION_DAYS: '30' })
  rx = await new Receiver().start()
})
afterAll(async () => {
  await t.ctx.webhooks.close()
  await rx.close()
  await t.close()
})

let n = 0
/** A package row as the packages service leaves it, plus the locker events it would write. */
async function lockerPackage(subId: string): Promise<string> {
  const packageId = `pkg_locker_${++n}`
  const now = t.clock.now()
  await t.ctx.db.insertInto('packages').values({
    package_id: packageId, sub_id: subId, tracking_number: `LK${n}`, asset_type: 'PACKAGE', current_status: 'IN_LOCKER', damaged: false, archived: false,
    custom_fields: '[]', user_name: 'test', locker_bank: 'A', locker_unit: '1', version: 1, activity_count: 1, event_count: 0, created_at: now, updated_at: now,
  }).execute()
  await packageEvent(subId, packageId, 'Deposited', 'IN_LOCKER')
  return packageId
}
async function packageEvent(subId: string, packageId: string, eventName: string, status: string, unit = '1'): Promise<void> {
  await inTransaction(t.ctx.db, async (trx) => {
    const { event_count: sequence } = await trx.updateTable('packages').set((eb) => ({ event_count: eb('event_count', '+', 1) }))
      .set({ current_status: status, locker_unit: unit }).where('package_id', '=', packageId).returning('event_count').executeTakeFirstOrThrow()
    await enqueueEvents(trx, [{ eventId: `evt_${packageId}_${sequence}`, subId, packageId, variant: 'locker', eventName, sequence, occurredAt: t.clock.now(), data: { packageId, sequence, currentStatus: status, lockerBank: 'A', lockerUnit: unit } }])
  })
}
async function lockerEvents(packageId: string) {
  return (await t.ctx.db.selectFrom('package_events').select(['event_name', 'sequence', 'data']).where('package_id', '=', packageId).orderBy('sequence').execute())
    .map((e) => `${e.sequence}:${e.event_name}`)
}

let me: TestClient
let path: string
beforeAll(async () => {
  me = await t.newClient()
  path = '/locker'
  await hooks(t, me, 'locker').create(configBody(rx.url(path), { type: 'locker', events: ['Deposited', 'PickedUp', 'PickupReminder', 'Expired'] }))
})

describe('locker jobs', () => {
  it('remind after 24 hours and expire after 7 days, once each per stay, in the package\'s sequence', async () => {
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
    const pkgRow = await t.ctx.db.selectFrom('packages').select(['event_count', 'version']).where('package_id', '=', pkg).executeTakeFirstOrThrow()
    expect(pkgRow).toEqual({ event_count: 3, version: 1 })

    const sent = rx.at(path).map((r) => JSON.parse(r.body)).filter((b) => b.data.packageId === pkg)
    expect(sent.map((b) => [b.eventName, b.data.sequence])).toEqual([['Deposited', 1], ['PickupReminder', 2], ['Expired', 3]])
    expect(sent[1].data).toMatchObject({ packageId: pkg, currentStatus: 'IN_LOCKER', lockerBank: 'A', lockerUnit: '1', depositedAt: expect.any(String) })

    // Moved to another unit: a new stay, reminded again.
    await packageEvent(me.subId, pkg, 'Deposited', 'IN_LOCKER', '2')
    t.clock.advance(DAY)
    await t.ctx.webhooks.runOnce()
    expect((await lockerEvents(pkg)).slice(3)).toEqual(['4:Deposited', '5:PickupReminder'])
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
    const workers = [0, 1, 2].map(() => createWebhooks({ db: t.ctx.db, clock: t.clock, ids: t.ctx.ids, config: t.config, sealKey: t.ctx.secrets.webhookKey }))
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
    const count = async (table: 'webhook_deliveries' | 'webhook_attempts') => (await t.ctx.db.selectFrom(table).select('delivery_id').where('delivery_id', '=', ping.deliveryId).execute()).length
    expect(await count('webhook_deliveries')).toBe(1)
    t.clock.advance(2 * HOUR)
    await t.ctx.webhooks.runOnce()
    expect(await count('webhook_deliveries')).toBe(0)
    expect(await count('webhook_attempts')).toBe(0)
    expect(await t.ctx.db.selectFrom('webhook_configs').select('config_id').where('config_id', '=', cfg.webHookConfigID).execute()).toEqual([])
  })
})
