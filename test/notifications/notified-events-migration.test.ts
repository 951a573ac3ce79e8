import { sql } from 'kysely'
import { expect, it } from 'vitest'
import { migrateToLatest } from '../../src/platform/db/migrate.js'
import { migrateUpTo } from '../support/migrations.js'
import { useTestDatabase } from '../support/use-test-app.js'

const db = useTestDatabase({ migrate: false })

// Migration 0040 replaces the arrival queue with the notifications' mark on the outbox: the events
// written before it count as consumed, except the arrivals still queued, which stay to be consumed
// once; nothing queued is lost across the upgrade, nothing already told is told again.
it('carries the queued arrivals over to the outbox as unconsumed, and only them', async () => {
  const k = db.handle.db
  await migrateUpTo(k, '0039_site_handover_proof')
  const event = (id: string, packageId: string, name: string) =>
    sql`insert into package_events (event_id, sub_id, package_id, variant, event_name, sequence, occurred_at, data)
        values (${id}, 'sub_m', ${packageId}, 'tracking', ${name}, 1, now(), '{}')`.execute(k)
  await event('evt_queued', 'pkg_queued', 'Acceptance')
  await event('evt_gathered', 'pkg_gathered', 'Acceptance')
  await event('evt_delivered', 'pkg_gathered', 'Delivered')
  await sql`insert into notification_arrivals (sub_id, package_id, contact_id, arrived_at)
            values ('sub_m', 'pkg_queued', 'con_m', now())`.execute(k)
  await migrateToLatest(k)
  const { rows } = await sql<{ event_id: string; unconsumed: boolean }>`
    select event_id, notified_at is null as unconsumed from package_events order by event_id`.execute(k)
  expect(rows).toEqual([
    { event_id: 'evt_delivered', unconsumed: false },
    { event_id: 'evt_gathered', unconsumed: false },
    { event_id: 'evt_queued', unconsumed: true },
  ])
  const { rows: tables } = await sql<{ n: number }>`
    select count(*)::int as n from information_schema.tables where table_name = 'notification_arrivals'`.execute(k)
  expect(tables[0]!.n).toBe(0)
})
