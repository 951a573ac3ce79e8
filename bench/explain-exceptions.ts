import pg from 'pg'
import { sql } from 'kysely'
import { openDatabase } from '../src/platform/db/database.js'
import { migrateToLatest } from '../src/platform/db/migrate.js'
import { createExceptionsService } from '../src/exceptions/index.js'
import { countWaiting, oldestWaiting, waitingAmong } from '../src/packages/index.js'
import { ManualClock } from '../src/platform/kit/clock.js'

/**
 * `node --import tsx bench/explain-exceptions.ts` (DATABASE_URL: an admin URL of a PostgreSQL
 * server): the plans of the exceptions list's packages queries (issue 30.3), and the time of the
 * counts and of a first page over every kind. EXCEPTIONS_PACKAGES packages (default 200,000; 10M
 * for the issue's scale) in one subscription, nine in ten handed over, the rest waiting over 60 days;
 * 1 in 200 damaged and 1 in 500 with no carrier, as many in another subscription (no sites: a site
 * filter adds `site_id in (…)` to the same index reads). Each plan should
 * read its partial index (migration 0079) or packages_status_created_idx, never the table.
 */
const admin = process.env.DATABASE_URL
if (!admin) {
  console.error('explain-exceptions needs DATABASE_URL (an admin URL of a PostgreSQL server)')
  process.exit(2)
}
const total = Number(process.env.EXCEPTIONS_PACKAGES ?? 200_000)
const name = `mailroom_exceptions_${process.pid}`
const url = new URL(admin)
url.pathname = `/${name}`
const adminClient = new pg.Client({ connectionString: admin })
await adminClient.connect()
await adminClient.query(`create database "${name}"`)
const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 2 })
const NOT_WAITING = `('DELIVERED', 'PICKED_UP', 'RETURNED_TO_SENDER', 'ARCHIVED', 'IN_TRANSIT')`
try {
  await migrateToLatest(handle.db)
  const started = Date.now()
  await sql`insert into subscriptions (sub_id, name) values ('sub_big', 'big'), ('sub_other', 'other')`.execute(
    handle.db,
  )
  for (const [sub, n] of [
    ['sub_big', total],
    ['sub_other', total],
  ] as const) {
    await sql`
      insert into packages (package_id, sub_id, tracking_number, asset_type, carrier_id, current_status, damaged,
        archived, custom_fields, site_id, user_name, version, activity_count, event_count, created_at, updated_at)
      select ${sub} || '_p' || i, ${sub}, 'TN' || lpad(i::text, 12, '0'), 'PACKAGE',
             case when i % 500 = 0 then null else 'UPS' end,
             case when i % 10 = 0 then 'RECEIVED' else 'DELIVERED' end,
             i % 200 = 0, false, '[]', null, 'bench', 1, 1, 1,
             timestamptz '2026-01-01' + (i * interval '1 minute') * (60 * 24 * 300 / ${n}::int),
             timestamptz '2026-01-01' + (i * interval '1 minute') * (60 * 24 * 300 / ${n}::int)
        from generate_series(1, ${n}::int) i`.execute(handle.db)
  }
  await sql`vacuum analyze`.execute(handle.db)
  console.log(`packages: ${2 * total} rows (loaded in ${Date.now() - started} ms)`)

  const plans: Array<[string, ReturnType<typeof sql>]> = [
    [
      'unclaimed: the oldest page',
      sql`select package_id, site_id, created_at, updated_at from packages where sub_id = 'sub_big'
        and current_status in ('RECEIVED', 'OUT_FOR_DELIVERY', 'READY_FOR_PICKUP', 'IN_LOCKER', 'DAMAGED')
        and archived = false and created_at < timestamptz '2026-10-01' order by created_at, package_id limit 25`,
    ],
    [
      'damaged: the count',
      sql`select count(*) from packages where sub_id = 'sub_big'
        and damaged and not archived and current_status not in ${sql.raw(NOT_WAITING)}`,
    ],
    [
      'unknown format: the oldest page',
      sql`select package_id, site_id, created_at, updated_at from packages where sub_id = 'sub_big'
        and (carrier_id is null or (carrier_id = 'MAILROOM' and tracking_number not like 'MR%'))
        and not archived and current_status not in ${sql.raw(NOT_WAITING)}
        order by created_at, package_id limit 25`,
    ],
  ]
  for (const [label, q] of plans) {
    const { rows } = await sql<{ 'QUERY PLAN': string }>`explain (analyze, buffers, costs off) ${q}`.execute(handle.db)
    console.log(`\nEXPLAIN ${label}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`)
  }

  // The service as the API runs it, over the packages kinds (the others are other domains' small tables).
  const db = handle.db
  const exceptions = createExceptionsService({
    clock: new ManualClock('2026-11-01T00:00:00Z'),
    sitesUnder: async () => undefined,
    packages: {
      oldestWaiting: (subId, q) => oldestWaiting(db, subId, q),
      countWaiting: (subId, q) => countWaiting(db, subId, q),
      waitingAmong: (subId, ids, siteIds) => waitingAmong(db, subId, ids, siteIds),
      recordsByIds: async () => [],
    },
    openScanIssues: async () => [],
    departures: async () => [],
    failedNotifications: async () => [],
    shelvesMissing: async () => [],
    returnProposals: async () => ({ rows: [], total: 0 }),
  })
  for (const [label, run] of [
    ['counts of every kind', () => exceptions.countExceptions({ subId: 'sub_big' }, {})],
    ['first page of every kind', () => exceptions.listExceptions({ subId: 'sub_big' }, {})],
    ['page 40 of damaged', () => exceptions.listExceptions({ subId: 'sub_big' }, { kind: 'damaged', page: 40 })],
  ] as const) {
    const times: number[] = []
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now()
      await run()
      times.push(performance.now() - t0)
    }
    times.sort((a, b) => a - b)
    console.log(`${label}: median ${times[3]!.toFixed(1)} ms, max ${times[6]!.toFixed(1)} ms (7 runs)`)
  }
} finally {
  await handle.close()
  await adminClient.query(`drop database "${name}"`)
  await adminClient.end()
}
