import { sql } from 'kysely'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { decideHeld, markRestored } from '../../src/app/restore/held-work.js'
import { enqueueEvents } from '../../src/events/outbox.js'
import { inTransaction } from '../../src/platform/db/transaction.js'
import type { TestApp } from '../support/build-test-app.js'
import { configBody, hooks, HOUR, startWebhookTest, stopWebhookTest } from '../webhooks/support/helpers.js'
import type { Receiver } from '../webhooks/support/receiver.js'

// Issue 31.1, the locker jobs: a PickupReminder (or an expiry) that became due between the backup and
// the restore was sent by the original. The restored copy writes its events held (not fanned out, a
// held_work row each) for the operator; one that becomes due after the restore is sent as usual.
let t: TestApp
let rx: Receiver
beforeAll(
  async () => ({ t, rx } = await startWebhookTest({ LOCKER_PICKUP_REMINDER_HOURS: '24', LOCKER_EXPIRY_DAYS: '7' })),
)
afterAll(() => stopWebhookTest(t, rx))

let n = 0
/** A package deposited in a locker now, as the packages service leaves it. */
async function deposit(subId: string): Promise<string> {
  const packageId = `pkg_held_locker_${++n}`
  const now = t.clock.now()
  await inTransaction(t.ctx.db, async (trx) => {
    await trx
      .insertInto('packages')
      .values({
        package_id: packageId,
        sub_id: subId,
        tracking_number: `LKH${n}`,
        asset_type: 'PACKAGE',
        current_status: 'IN_LOCKER',
        damaged: false,
        archived: false,
        custom_fields: '[]',
        user_name: 'test',
        locker_bank: 'A',
        locker_unit: String(n),
        version: 1,
        activity_count: 1,
        event_count: 1,
        created_at: now,
        updated_at: now,
      })
      .execute()
    await enqueueEvents(trx, [
      {
        eventId: `evt_${packageId}_1`,
        subId,
        packageId,
        variant: 'locker',
        eventName: 'Deposited',
        sequence: 1,
        occurredAt: now,
        data: { packageId, sequence: 1, currentStatus: 'IN_LOCKER', lockerBank: 'A', lockerUnit: String(n) },
      },
    ])
  })
  return packageId
}

it('holds a locker reminder that became due before the restore, and sends one due after it', async () => {
  const me = await t.newClient()
  await hooks(t, me, 'locker').create(
    configBody(rx.url('/held'), { type: 'locker', events: ['Deposited', 'PickupReminder'] }),
  )
  const sent = (name: string) =>
    rx
      .at('/held')
      .map((r) => JSON.parse(r.body) as { eventName: string; data: { packageId: string } })
      .filter((b) => b.eventName === name)
      .map((b) => b.data.packageId)

  const early = await deposit(me.subId)
  t.clock.advance(10 * HOUR)
  const late = await deposit(me.subId)
  await t.ctx.webhooks.runOnce()
  expect(sent('Deposited').sort()).toEqual([early, late].sort())
  // The backup was taken here; the original ran on and reminded of Early at 24 hours; the restore
  // is 26 hours after Early's deposit (16 after Late's), before the restored copy's worker ran.
  t.clock.advance(16 * HOUR)
  await markRestored(t.ctx.db, { now: t.clock.now(), holdAfterSeconds: 15 * 60, source: 'mark' })

  await t.ctx.webhooks.runOnce()
  await t.ctx.webhooks.runOnce()
  expect(sent('PickupReminder')).toEqual([])
  const { rows } = await sql<{ dispatched: boolean; held: boolean }>`
    select e.dispatched_at is not null as dispatched, h.item_id is not null as held from package_events e
    left join held_work h on h.item_type = 'dispatch-event' and h.item_id = e.event_id
    where e.package_id = ${early} and e.event_name = 'PickupReminder'`.execute(t.ctx.db)
  expect(rows).toEqual([{ dispatched: true, held: true }])

  // Late's reminder becomes due after the restore: sent as usual.
  t.clock.advance(9 * HOUR)
  await t.ctx.webhooks.runOnce()
  await t.ctx.webhooks.runOnce()
  expect(sent('PickupReminder')).toEqual([late])

  // The operator resends: Early's reminder goes out, once.
  expect(await decideHeld(t.ctx.db, 'webhooks', 'resend', t.clock.now())).toBe(1)
  await t.ctx.webhooks.runOnce()
  await t.ctx.webhooks.runOnce()
  expect(sent('PickupReminder').sort()).toEqual([early, late].sort())
})
