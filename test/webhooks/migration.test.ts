import { afterAll, beforeAll, expect, it } from 'vitest'
import { migrateDown, migrateToLatest, migratorFor } from '../../src/platform/db/migrate.js'
import { createTestDatabase } from '../support/test-db.js'

// Migration 0008 on a database that already holds webhook data: what it fills in for the rows
// written under 0005's rules, and that it goes down again.
let db: Awaited<ReturnType<typeof createTestDatabase>>
beforeAll(async () => {
  db = await createTestDatabase({ migrate: false })
})
afterAll(() => db.drop())

const T = new Date('2026-02-01T00:00:00.000Z')
const HOUR = 3600_000
const ago = (h: number) => new Date(T.getTime() - h * HOUR)

it('backfills the last failure of live streaks and asks for a sweep where pending deliveries cannot be sent', async () => {
  const k = db.handle.db as any
  const { error } = await migratorFor(k).migrateTo('0006_search')
  expect(error).toBeUndefined()
  await k.insertInto('subscriptions').values({ sub_id: 'sub_m', name: 'sub_m' }).execute()
  const config = (id: string, extra: Record<string, unknown> = {}) => ({
    config_id: id,
    sub_id: 'sub_m',
    variant: 'tracking',
    name: id,
    url: 'https://example.com/hook',
    events: ['Received'],
    auth_type: 'none',
    signing_secret_sealed: 'x',
    created_at: ago(100),
    updated_at: ago(100),
    ...extra,
  })
  await k
    .insertInto('webhook_configs')
    .values([
      config('whk_failing', { failing_since: ago(50) }),
      config('whk_deleted', { deleted_at: ago(1), status: 'in-active' }),
      config('whk_inactive', { status: 'in-active' }),
      config('whk_dropped'),
      config('whk_fine'),
    ])
    .execute()
  const delivery = (id: string, configId: string, extra: Record<string, unknown> = {}) => ({
    delivery_id: id,
    sub_id: 'sub_m',
    config_id: configId,
    event_id: `evt_${id}`,
    event_name: 'Received',
    package_id: 'pkg_1',
    sequence: 1,
    occurred_at: ago(60),
    status: 'pending',
    attempts: 1,
    next_attempt_at: T,
    give_up_at: ago(-12),
    created_at: ago(60),
    updated_at: ago(1),
    ...extra,
  })
  await k
    .insertInto('webhook_deliveries')
    .values([
      delivery('dlv_f', 'whk_failing'),
      delivery('dlv_d', 'whk_deleted'),
      delivery('dlv_i', 'whk_inactive', { status: 'failed' }),
      delivery('dlv_x', 'whk_dropped', { event_name: 'Delivered' }),
      delivery('dlv_ok', 'whk_fine'),
    ])
    .execute()
  await k
    .insertInto('webhook_attempts')
    .values([
      {
        attempt_id: 'att_1',
        delivery_id: 'dlv_f',
        sub_id: 'sub_m',
        config_id: 'whk_failing',
        attempt_no: 1,
        started_at: ago(60),
        succeeded: true,
      },
      {
        attempt_id: 'att_2',
        delivery_id: 'dlv_f',
        sub_id: 'sub_m',
        config_id: 'whk_failing',
        attempt_no: 2,
        started_at: ago(50),
        succeeded: false,
      },
      {
        attempt_id: 'att_3',
        delivery_id: 'dlv_f',
        sub_id: 'sub_m',
        config_id: 'whk_failing',
        attempt_no: 3,
        started_at: ago(2),
        succeeded: false,
      },
    ])
    .execute()

  await migrateToLatest(k)
  const rows = await k
    .selectFrom('webhook_configs')
    .select(['config_id', 'last_failure_at', 'sweep_requested_at'])
    .orderBy('config_id')
    .execute()
  const by = Object.fromEntries(rows.map((r: { config_id: string }) => [r.config_id, r]))
  expect(by.whk_failing.last_failure_at).toEqual(ago(2))
  expect(by.whk_fine.last_failure_at).toBeNull()
  expect(
    rows
      .filter((r: { sweep_requested_at: Date | null }) => r.sweep_requested_at)
      .map((r: { config_id: string }) => r.config_id),
  ).toEqual(['whk_deleted', 'whk_dropped'])

  // A delivery waiting for its first attempt has no window yet; going down gives it 0005's.
  await k
    .insertInto('webhook_deliveries')
    .values(delivery('dlv_new', 'whk_fine', { event_id: 'evt_new', attempts: 0, give_up_at: null }))
    .execute()
  const names = (await migratorFor(k).getMigrations()).map((m) => m.name)
  while ((await migratorFor(k).getMigrations()).some((m) => m.name === '0008_webhooks_tuning' && m.executedAt))
    await migrateDown(k)
  const row = await k
    .selectFrom('webhook_deliveries')
    .select('give_up_at')
    .where('delivery_id', '=', 'dlv_new')
    .executeTakeFirstOrThrow()
  expect(row.give_up_at).toEqual(new Date(ago(60).getTime() + 72 * HOUR))
  expect((await migrateToLatest(k)).length).toBe(names.length - names.indexOf('0008_webhooks_tuning'))
})
