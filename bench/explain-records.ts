import { spawnSync } from 'node:child_process'
import pg from 'pg'
import { sql } from 'kysely'
import { openDatabase } from '../src/platform/db/database.js'
import { migrateToLatest } from '../src/platform/db/migrate.js'
import { recordQuery, type RecordFilter } from '../src/packages/store/read.js'
import { trackingLookupQuery } from '../src/search/store/lookup.js'
import { ROOT } from './lib.js'

/**
 * `npm run bench:explain-records` (DATABASE_URL: an admin URL of a PostgreSQL server): the plans of
 * the hot reads as the service runs them, prepared statements whose generic plan PostgreSQL keeps
 * after five executions (platform/db/prepared-statements.ts), at 200 packages and after the table
 * grew to EXPLAIN_GROW_TO packages (default 5,000; 1,000,000 for the issue's figure) without an
 * ANALYZE in between (autovacuum off on the table: the window before its next ANALYZE). Issue 26.8:
 * a plan chosen on a small table must not be what a large one runs.
 */
const admin = process.env.DATABASE_URL
if (!admin) {
  console.error('bench:explain-records needs DATABASE_URL (an admin URL of a PostgreSQL server)')
  process.exit(2)
}
const growTo = Number(process.env.EXPLAIN_GROW_TO ?? 5000)
const name = `mailroom_explain_${process.pid}`
const url = new URL(admin)
url.pathname = `/${name}`
const adminClient = new pg.Client({ connectionString: admin })
await adminClient.connect()
await adminClient.query(`create database "${name}"`)

function seed(packages: number, subscription: string): void {
  const r = spawnSync(
    process.execPath,
    ['bin/mailroom.js', 'seed', '--packages', String(packages), '--subscription', subscription],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        MAILROOM_FROM_SOURCE: '1',
        DATABASE_URL: url.toString(),
        MAILROOM_SECRET: 'mailroom-bench-master-secret-0123456789abcdef',
        MAILROOM_ENV: 'development',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  )
  if (r.status !== 0) throw new Error(`seed exited ${r.status}`)
}

const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 2 })
const session = new pg.Client({ connectionString: url.toString() })
try {
  await migrateToLatest(handle.db)
  await sql`alter table packages set (autovacuum_enabled = false)`.execute(handle.db)
  seed(200, 'explain-small')
  await sql`analyze`.execute(handle.db)
  const { rows: picked } = await sql<{ sub_id: string; package_id: string; tracking_number: string }>`
    select sub_id, package_id, tracking_number from packages order by created_at limit 8`.execute(handle.db)
  const subId = picked[0]!.sub_id
  const cases: Array<{ name: string; by?: RecordFilter; lookup?: boolean }> = [
    { name: 'record by id ×1 (get)', by: { packageIds: [picked[0]!.package_id] } },
    { name: 'record by id ×8 (search page)', by: { packageIds: picked.map((p) => p.package_id) } },
    { name: 'record by tracking number ×1 (get, decode)', by: { trackingNumbers: [picked[1]!.tracking_number] } },
    { name: 'tracking number lookup (search first page)', lookup: true },
  ]
  // One session, as a pool connection of the service: each statement prepared, run six times (the
  // sixth may use the generic plan), explained; then again once the table has grown.
  await session.connect()
  const compiled = cases.map((c, i) => {
    const q = c.lookup
      ? trackingLookupQuery(subId, 'starts', 26, [picked[2]!.tracking_number.slice(0, 8)]).compile(handle.db)
      : recordQuery(subId, c.by!).compile(handle.db)
    return { ...c, stmt: `hot_${i}`, q }
  })
  const explainAll = async (label: string) => {
    const count = (await session.query<{ n: string }>('select count(*) as n from packages')).rows[0]!.n
    console.log(`\n=== ${label}: ${count} packages ===`)
    for (const c of compiled) {
      // EXECUTE takes literals, not bind parameters.
      const literal = (v: unknown): string =>
        Array.isArray(v)
          ? session.escapeLiteral(`{${v.map((x) => `"${String(x).replace(/["\\]/g, '\\$&')}"`).join(',')}}`)
          : session.escapeLiteral(String(v))
      const args = `(${c.q.parameters.map(literal).join(', ')})`
      for (let i = 0; i < 6; i++) await session.query(`execute ${c.stmt}${args}`)
      const { rows } = await session.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, costs off, timing on, summary on) execute ${c.stmt}${args}`,
      )
      console.log(`\n-- ${c.name}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`)
    }
  }
  for (const c of compiled) await session.query(`prepare ${c.stmt} as ${c.q.sql}`)
  await explainAll('fresh table, analyzed')
  seed(growTo - 200, 'explain-large')
  // `mailroom seed` ends with VACUUM ANALYZE: these are the plans of the grown table, analyzed, the statements re-planned.
  await explainAll(`grown to ${growTo} packages (the seed's own VACUUM ANALYZE since), the statements prepared before`)
} finally {
  await session.end().catch(() => {})
  await handle.close()
  await adminClient.query(`drop database if exists "${name}" with (force)`)
  await adminClient.end()
}
