import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readyToFanOut } from '../../src/webhooks/delivery/fan-out.js'
import type { TestApp } from '../support/build-test-app.js'
import { configBody, emit, hooks, startWebhookTest, stopWebhookTest } from './support/helpers.js'
import type { Receiver } from './support/receiver.js'

// The fan-out from the outbox: idempotent, and never ahead of an earlier event of the same package.
let t: TestApp
let rx: Receiver
beforeAll(async () => ({ t, rx } = await startWebhookTest()))
afterAll(() => stopWebhookTest(t, rx))

describe('which claimed events may be fanned out', () => {
  const ev = (package_id: string, sequence: number) => ({ package_id, sequence })
  it('keeps events whose package has nothing earlier waiting', () => {
    const claimed = [ev('a', 1), ev('a', 2), ev('b', 5)]
    expect(readyToFanOut(claimed, [])).toEqual(claimed)
    expect(readyToFanOut(claimed, [ev('c', 1)])).toEqual(claimed)
  })
  it('holds back every event after the first one still waiting', () => {
    expect(readyToFanOut([ev('a', 2), ev('a', 4), ev('b', 1)], [ev('a', 3), ev('a', 7)])).toEqual([
      ev('a', 2),
      ev('b', 1),
    ])
    expect(readyToFanOut([ev('a', 2)], [ev('a', 1)])).toEqual([])
  })
})

describe('fan-out', () => {
  it('makes one delivery per configuration and event, even when an event is fanned out again', async () => {
    const client = await t.newClient()
    const h = hooks(t, client)
    const one = await h.create(configBody(rx.url('/fan-1')))
    const two = await h.create(configBody(rx.url('/fan-2'), { events: ['Received'] }))
    const other = await h.create(configBody(rx.url('/fan-3'), { events: ['Delivered'] }))
    const e = await emit(t, client.subId, { eventName: 'Received' })
    expect((await t.ctx.webhooks.runOnce()).fannedOut).toBeGreaterThanOrEqual(1)
    await t.ctx.db
      .updateTable('package_events')
      .set({ dispatched_at: null })
      .where('event_id', '=', e.eventId)
      .execute()
    await t.ctx.webhooks.runOnce()
    expect(await h.deliveries(one.webHookConfigID)).toHaveLength(1)
    expect(await h.deliveries(two.webHookConfigID)).toHaveLength(1)
    expect(await h.deliveries(other.webHookConfigID)).toHaveLength(0)
    expect(rx.at('/fan-1')).toHaveLength(1)
  })

  // Two fan-outs at once need two connections: PostgreSQL only (PGlite runs one transaction at a time).
  it.runIf(!!process.env.TEST_DATABASE_URL)(
    'waits for an earlier event another fan-out holds, then sends both, each once',
    async () => {
      const client = await t.newClient()
      await hooks(t, client).create(configBody(rx.url('/held'), { events: ['Received', 'Delivered'] }))
      const first = await emit(t, client.subId, { eventName: 'Received', packageId: 'pkg_held' })
      await emit(t, client.subId, { eventName: 'Delivered', packageId: 'pkg_held' })
      let release!: () => void
      const gate = new Promise<void>((r) => (release = r))
      let locked!: () => void
      const isLocked = new Promise<void>((r) => (locked = r))
      const holder = t.ctx.db.transaction().execute(async (trx) => {
        await sql`select event_id from package_events where event_id = ${first.eventId} for update`.execute(trx)
        locked()
        await gate
      })
      await isLocked
      await t.ctx.webhooks.runOnce()
      expect(rx.at('/held')).toHaveLength(0)
      const later = await t.ctx.db
        .selectFrom('package_events')
        .select('dispatched_at')
        .where('package_id', '=', 'pkg_held')
        .where('sequence', '=', 2)
        .executeTakeFirstOrThrow()
      expect(later.dispatched_at).toBeNull()
      release()
      await holder
      await t.ctx.webhooks.runOnce()
      // Delivery is unordered (docs/jobs.md): each event once, in whatever order the sends finish.
      expect(
        rx
          .at('/held')
          .map((r) => JSON.parse(r.body).data.sequence as number)
          .sort(),
      ).toEqual([1, 2])
    },
  )
})
