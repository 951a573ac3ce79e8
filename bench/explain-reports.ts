import { loadavg } from 'node:os'
import pg from 'pg'
import { Kysely, PostgresDialect, sql } from 'kysely'
import type { Database } from '../src/platform/db/tables.js'
import { openDatabase } from '../src/platform/db/database.js'
import { migrateToLatest } from '../src/platform/db/migrate.js'
import { createReportsService } from '../src/reports/index.js'
import { periodTallies } from '../src/reports/store/tallies.js'
import { ManualClock } from '../src/platform/kit/clock.js'

/**
 * `node --import tsx bench/explain-reports.ts` (DATABASE_URL: an admin URL of a PostgreSQL server):
 * the plan and the time of a month's, a quarter's and a year's report (issue 30.4: ≤ 200 ms at 10M
 * packages). Reports read only the report tallies (migrations 0072, 0080), so the scale is theirs:
 * three years of 10M packages at 50 sites and 12 carriers, every site × carrier × day with
 * arrivals, hand-overs in six dwell buckets, 20 clerks and notifications (≈ 0.7M report_days rows
 * for the subscription), beside another subscription's as many, and 20,000 deltas not folded yet.
 */
const admin = process.env.DATABASE_URL
if (!admin) {
  console.error('explain-reports needs DATABASE_URL (an admin URL of a PostgreSQL server)')
  process.exit(2)
}
const name = `mailroom_reports_${process.pid}`
const url = new URL(admin)
url.pathname = `/${name}`
const adminClient = new pg.Client({ connectionString: admin })
await adminClient.connect()
await adminClient.query(`create database "${name}"`)
const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 2 })
try {
  await migrateToLatest(handle.db)
  const started = Date.now()
  for (const sub of ['sub_big', 'sub_other']) {
    // The same worst case as before migration 0080, at its grains: every site x carrier x day with 3
    // arrivals and 3 hand-overs in each of six dwell buckets, 20 clerks, notifications every day.
    await sql`
      insert into report_days (sub_id, grain, day, key, key2, a, b, h)
      select ${sub}, g.grain, d::date, g.key, g.key2, g.a, g.b, g.h
        from generate_series(date '2024-01-01', date '2026-12-31', interval '1 day') d,
             (select 'site_carrier', 'site_' || s, 'CARRIER' || c, 3, 18, null::bigint[]
                from generate_series(1, 50) s, generate_series(1, 12) c
              union all select 'site', 'site_' || s, '', 36, 216, array[0,0,36,0,36,36,36,36,0,36,0,0,0,0,0,0]::bigint[]
                from generate_series(1, 50) s
              union all select 'carrier', 'CARRIER' || c, '', 150, 900, null from generate_series(1, 12) c
              union all select 'all', '', '', 1800, 10800, array[0,0,1800,0,1800,1800,1800,1800,0,1800,0,0,0,0,0,0]::bigint[]
              union all select 'clerk', 'clerk' || u || '@example.com', '', 20, 20, null from generate_series(1, 20) u
              union all select 'notifications', '', '', 2000, 30, null) g(grain, key, key2, a, b, h)`.execute(handle.db)
  }
  await sql`
    insert into report_tally_deltas (sub_id, day, kind, site_id, carrier_id, bucket, n)
    select 'sub_big', date '2026-06-01' + (i % 30), 'received', 'site_' || (i % 50), 'CARRIER' || (i % 12), -1, 1
      from generate_series(1, 20000) i`.execute(handle.db)
  // Steady state: autovacuum has set the visibility map, so the index scans read no heap.
  await sql`vacuum analyze`.execute(handle.db)
  const { rows: count } = await sql<{ n: string }>`select count(*) as n from report_days`.execute(handle.db)
  console.log(`report_days: ${count[0]!.n} rows (loaded in ${Date.now() - started} ms)`)

  // The plan of the report's one statement: EXPLAIN of the very text and parameters the store sends.
  const explain = async (label: string, q: Parameters<typeof periodTallies>[2]) => {
    let text = ''
    let parameters: readonly unknown[] = []
    const pool = new pg.Pool({ connectionString: url.toString(), max: 1 })
    const spy = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      log: (e) => {
        if (e.level === 'query') ({ sql: text, parameters } = e.query)
      },
    })
    const t0 = performance.now()
    const tallies = await periodTallies(spy, 'sub_big', q)
    const ms = performance.now() - t0
    const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${text}`, [...parameters])
    await spy.destroy()
    console.log(`\n${label}: ${tallies.length} tallies back in ${ms.toFixed(1)} ms`)
    console.log(`\nEXPLAIN ${label}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`)
  }
  await explain('month per day by site', { from: '2026-06-01', to: '2026-06-30', period: 'day', groupBy: 'site' })
  await explain('month by carrier under 5 sites', {
    from: '2026-06-01',
    to: '2026-06-30',
    period: 'day',
    groupBy: 'carrier',
    siteIds: ['site_1', 'site_2', 'site_3', 'site_4', 'site_5'],
  })

  // The whole report as the API computes it (no site names: the bench has no site tree).
  const reports = createReportsService({
    db: handle.db,
    clock: new ManualClock('2026-06-30T12:00:00Z'),
    sites: { getInfos: async () => new Map(), listSites: async () => ({ inboundSites: [], totalCount: 0 }) },
    carriers: { getVisible: async () => new Map() },
    // The tallies only: the oldest waiting is the packages domain's index ranges.
    packages: { oldestWaiting: async () => [] },
  })
  for (const [label, q] of [
    ['month per day', { from: '2026-06-01', to: '2026-06-30' }],
    ['quarter per week by carrier', { from: '2026-04-01', to: '2026-06-30', period: 'week', groupBy: 'carrier' }],
    ['year per week by site', { from: '2025-07-01', to: '2026-06-30', period: 'week', groupBy: 'site' }],
  ] as const) {
    const times: number[] = []
    const load = loadavg()[0]!.toFixed(1)
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now()
      await reports.report('sub_big', q)
      times.push(performance.now() - t0)
    }
    times.sort((a, b) => a - b)
    // The machine may be shared: the minimum is the least disturbed run, the load average says how shared.
    const ms = (i: number) => times[i]!.toFixed(1)
    console.log(
      `report ${label}: min ${ms(0)} ms, median ${ms(7)} ms, max ${ms(14)} ms (15 runs, load average ${load} before)`,
    )
  }
} finally {
  await handle.close()
  await adminClient.query(`drop database "${name}"`)
  await adminClient.end()
}
