import { beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { housekeepingTasks, runHousekeeping } from '../../src/app/housekeeping.js'
import { startScheduler } from '../../src/platform/jobs/scheduler.js'
import { tallyDrift } from '../support/tallies.js'
import type { TestClient } from '../support/build-test-app.js'
import { useTestApp } from '../support/use-test-app.js'
import { api, PNG_1PX, trackingNumber } from '../support/factories.js'

const t = useTestApp()
let me: TestClient
let a: ReturnType<typeof api>
beforeAll(async () => {
  me = await t.newClient()
  a = api(t, me)
})

const HOUR = 3600_000
const housekeeping = () => runHousekeeping({ db: t.ctx.db, clock: t.clock, images: t.ctx.receiving.images })
const upload = async () =>
  (await a.ok('POST', '/api/v1/packages/images', { base64: PNG_1PX }, 200)) as { imageId: string; tempURL: string }

describe('housekeeping', () => {
  it('deletes uploads left unattached past 24 hours, and keeps attached ones', async () => {
    const left = await upload()
    const kept = await upload()
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber() },
      images: [{ imageLevel: 'ASSET', imageType: 'LABEL', tempURL: kept.tempURL }],
    })
    t.clock.advance(23 * HOUR)
    me = await t.refresh(me)
    a = api(t, me)
    expect((await housekeeping()).images).toBe(0)
    expect((await a.call('GET', `/${left.tempURL}`)).statusCode).toBe(200)
    t.clock.advance(2 * HOUR)
    me = await t.refresh(me)
    a = api(t, me)
    expect((await housekeeping()).images).toBeGreaterThanOrEqual(1)
    expect((await a.call('GET', `/${left.tempURL}`)).statusCode).toBe(404)
    expect(
      await t.ctx.db.selectFrom('images').select('image_id').where('image_id', '=', left.imageId).executeTakeFirst(),
    ).toBeUndefined()
    expect((await a.call('GET', `/${kept.tempURL}`)).statusCode).toBe(200)
  })

  it('forgets an Idempotency-Key after 24 hours: the key may then carry another request', async () => {
    me = await t.refresh(me)
    a = api(t, me)
    const first = await a.call(
      'POST',
      '/api/v1/contacts',
      { contactType: 'RECEIVER', name: 'Key One' },
      { 'idempotency-key': 'hk-1' },
    )
    expect(first.statusCode).toBe(201)
    const reused = await a.call(
      'POST',
      '/api/v1/contacts',
      { contactType: 'RECEIVER', name: 'Key Two' },
      { 'idempotency-key': 'hk-1' },
    )
    expect(reused.statusCode).toBe(409)
    t.clock.advance(25 * HOUR)
    me = await t.refresh(me)
    a = api(t, me)
    // Taken over at once, even before the purge runs…
    const later = await a.call(
      'POST',
      '/api/v1/contacts',
      { contactType: 'RECEIVER', name: 'Key Two' },
      { 'idempotency-key': 'hk-1' },
    )
    expect(later.statusCode).toBe(201)
    expect(later.json().contactId).not.toBe(first.json().contactId)
    // …and purged once old.
    t.clock.advance(25 * HOUR)
    expect((await housekeeping()).idempotencyKeys).toBeGreaterThanOrEqual(1)
    expect(
      await t.ctx.db
        .selectFrom('idempotency_keys')
        .select('idempotency_key')
        .where('idempotency_key', '=', 'hk-1')
        .executeTakeFirst(),
    ).toBeUndefined()
  })

  it('frees a key whose request never completed (its process died) after 5 minutes', async () => {
    me = await t.refresh(me)
    a = api(t, me)
    // What a crash between claim and completion leaves behind.
    await t.ctx.db
      .insertInto('idempotency_keys')
      .values({ sub_id: me.subId, idempotency_key: 'hk-crash', request_hash: 'x', created_at: t.clock.now() })
      .execute()
    const during = await a.call(
      'POST',
      '/api/v1/contacts',
      { contactType: 'RECEIVER', name: 'After crash' },
      { 'idempotency-key': 'hk-crash' },
    )
    expect(during.statusCode).toBe(409)
    t.clock.advance(6 * 60_000)
    const after = await a.call(
      'POST',
      '/api/v1/contacts',
      { contactType: 'RECEIVER', name: 'After crash' },
      { 'idempotency-key': 'hk-crash' },
    )
    expect(after.statusCode).toBe(201)
    const replay = await a.call(
      'POST',
      '/api/v1/contacts',
      { contactType: 'RECEIVER', name: 'After crash' },
      { 'idempotency-key': 'hk-crash' },
    )
    expect(replay.statusCode).toBe(201)
    expect(replay.headers['idempotent-replayed']).toBe('true')
  })

  it('folds the search-tally deltas of package writes every few seconds, and the totals stay what they were', async () => {
    me = await t.refresh(me)
    a = api(t, me)
    await a.ok('POST', '/api/v1/packages', { package: { trackingNumber: trackingNumber() } })
    const deltas = async () =>
      Number((await sql<{ n: string }>`select count(*) as n from package_tally_deltas`.execute(t.ctx.db)).rows[0]!.n)
    expect(await deltas()).toBeGreaterThan(0)
    const logged: string[] = []
    const tasks = housekeepingTasks({
      db: t.ctx.db,
      clock: t.clock,
      images: t.ctx.receiving.images,
      log: (msg) => logged.push(msg),
      everyMs: 3_600_000,
      foldEveryMs: 20,
    })
    const stop = startScheduler(tasks, { error: (_obj, msg) => logged.push(msg) })
    try {
      for (let i = 0; i < 100 && (await deltas()) > 0; i++) await new Promise((r) => setTimeout(r, 20))
    } finally {
      await stop()
    }
    expect(await deltas()).toBe(0)
    expect(await tallyDrift(t.ctx.db)).toEqual([])
    expect(logged.filter((m) => m.includes('failed'))).toEqual([])
  })
})
