import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inTransaction } from '../../src/platform/db/transaction.js'
import { defaultIds } from '../../src/platform/kit/ids.js'
import { enqueueEvents } from '../../src/events/outbox.js'
import { createFanOut, FANOUT_BATCH, FANOUT_PER_SUBSCRIPTION } from '../../src/webhooks/delivery/fan-out.js'
import type { TestApp } from '../support/build-test-app.js'
import { configBody, hooks, startWebhookTest, stopWebhookTest } from './support/helpers.js'
import type { Receiver } from './support/receiver.js'

// Issue 26: one subscription's burst never stops the others' webhooks. A fan-out of more deliveries
// than a statement has parameters (65,535), a backlog bigger than a pass, and a subscription whose
// deliveries cannot be written at all.
let t: TestApp
let rx: Receiver
beforeAll(async () => ({ t, rx } = await startWebhookTest()))
afterAll(() => stopWebhookTest(t, rx))

let n = 0
/** `count` events of distinct packages for one subscription, written in one outbox insert. */
async function burst(subId: string, count: number, at = t.clock.now()): Promise<void> {
  const events = Array.from({ length: count }, () => {
    const packageId = `pkg_burst${++n}`
    return {
      eventId: `evt_burst${n}`,
      subId,
      packageId,
      variant: 'tracking' as const,
      eventName: 'Received',
      sequence: 1,
      occurredAt: at,
      data: { packageId, trackingNumber: `1Z${n}`, currentStatus: 'RECEIVED', previousStatus: null, sequence: 1 },
    }
  })
  await inTransaction(t.ctx.db, (trx) => enqueueEvents(trx, events))
}

const pendingOf = async (subId: string) =>
  Number(
    (
      await t.ctx.db
        .selectFrom('package_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('sub_id', '=', subId)
        .where('dispatched_at', 'is', null)
        .executeTakeFirstOrThrow()
    ).n,
  )

const deliveriesOf = async (subId: string) =>
  Number(
    (
      await t.ctx.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('sub_id', '=', subId)
        .executeTakeFirstOrThrow()
    ).n,
  )

describe('fan-out past the bind parameter limit', () => {
  it('writes 4,700 deliveries of one subscription (over 65,535 values) and another subscription still gets its webhook', async () => {
    const big = await t.newClient()
    const h = hooks(t, big)
    for (let i = 0; i < 50; i++) await h.create(configBody(rx.url(`/big-${i % 5}`)))
    const quiet = await t.newClient()
    await hooks(t, quiet).create(configBody(rx.url('/quiet')))
    await burst(big.subId, 94)
    await burst(quiet.subId, 1)

    await t.ctx.webhooks.runOnce()

    expect(rx.at('/quiet')).toHaveLength(1)
    expect(await deliveriesOf(big.subId)).toBe(94 * 50)
    expect(await pendingOf(big.subId)).toBe(0)
  }, 120_000)
})

describe('fair share per subscription', () => {
  it("fans out another subscription's event in the first pass, behind a backlog bigger than a pass", async () => {
    const busy = await t.newClient()
    await hooks(t, busy).create(configBody(rx.url('/busy')))
    const quiet = await t.newClient()
    await hooks(t, quiet).create(configBody(rx.url('/quiet-fair')))
    // The backlog is older than the quiet subscription's event: the oldest first would take it all.
    await burst(busy.subId, FANOUT_BATCH + 100)
    await burst(quiet.subId, 1, new Date(t.clock.now().getTime() + 1000))

    const { fanOutPass } = createFanOut({ db: t.ctx.db, clock: t.clock, ids: defaultIds })
    await fanOutPass()

    expect(await pendingOf(quiet.subId)).toBe(0)
    expect(await deliveriesOf(quiet.subId)).toBe(1)
    expect(await pendingOf(busy.subId)).toBe(FANOUT_BATCH + 100 - FANOUT_PER_SUBSCRIPTION)
    // The backlog is not lost: the later passes take it all.
    while ((await fanOutPass()).dispatched > 0);
    expect(await pendingOf(busy.subId)).toBe(0)
    expect(await deliveriesOf(busy.subId)).toBe(FANOUT_BATCH + 100)
  }, 60_000)
})

describe('a subscription whose deliveries cannot be written', () => {
  it("is left in the outbox and logged, and every other subscription's webhooks are delivered", async () => {
    const bad = await t.newClient()
    await hooks(t, bad).create(configBody(rx.url('/bad')))
    const good = await t.newClient()
    await hooks(t, good).create(configBody(rx.url('/good')))
    // A database refusal only this subscription's rows meet (a constraint, a trigger, a bad value).
    await sql
      .raw(
        `create function refuse_bad_sub() returns trigger language plpgsql as $$
         begin if new.sub_id = '${bad.subId}' then raise exception 'refused'; end if; return new; end $$`,
      )
      .execute(t.ctx.db)
    await sql
      .raw(
        'create trigger refuse_bad_sub before insert on webhook_deliveries for each row execute function refuse_bad_sub()',
      )
      .execute(t.ctx.db)
    try {
      await burst(bad.subId, 3)
      await burst(good.subId, 2)
      await t.ctx.webhooks.runOnce()
      expect(rx.at('/good')).toHaveLength(2)
      expect(rx.at('/bad')).toHaveLength(0)
      expect(await pendingOf(bad.subId)).toBe(3)
    } finally {
      await sql.raw('drop trigger refuse_bad_sub on webhook_deliveries').execute(t.ctx.db)
      await sql.raw('drop function refuse_bad_sub()').execute(t.ctx.db)
    }
    // Once the cause is gone, the held events go out.
    await t.ctx.webhooks.runOnce()
    expect(rx.at('/bad')).toHaveLength(3)
  }, 60_000)
})

describe('the outbox insert past the bind parameter limit', () => {
  it('writes 8,200 events of one transaction (8 values each: over 65,535)', async () => {
    const client = await t.newClient()
    await burst(client.subId, 8_200)
    expect(await pendingOf(client.subId)).toBe(8_200)
    await t.ctx.db
      .updateTable('package_events')
      .set({ dispatched_at: t.clock.now() })
      .where('sub_id', '=', client.subId)
      .execute()
  }, 60_000)
})
