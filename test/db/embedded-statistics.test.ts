import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { analyzeChangedTables } from '../../src/platform/db/embedded-statistics.js'
import { useTestDatabase } from '../support/use-test-app.js'

// The embedded engine runs no autovacuum: the service analyzes a table once it has changed in size
// since its last ANALYZE. The same code runs on PostgreSQL (where autovacuum does it as well).
const db = useTestDatabase()

const statsOf = async (table: string) =>
  (
    await sql<{ reltuples: number; analyzed: boolean }>`
      select c.reltuples::float8 as reltuples,
        exists (select 1 from pg_stats s where s.tablename = c.relname and s.schemaname = current_schema()) as analyzed
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relname = ${table} and n.nspname = current_schema()`.execute(db.handle.db)
  ).rows[0]!

describe('planner statistics of the embedded database', () => {
  it('analyzes a table that grew, then leaves it alone until it changes again', async () => {
    const d = db.handle.db
    await sql`create table stats_probe (id int primary key, word text not null)`.execute(d)
    await sql`insert into stats_probe select g, 'w' || g from generate_series(1, 2000) g`.execute(d)
    expect((await statsOf('stats_probe')).analyzed).toBe(false)

    expect(await analyzeChangedTables(d)).toContain('stats_probe')
    expect(await statsOf('stats_probe')).toEqual({ reltuples: 2000, analyzed: true })
    // Nothing changed: nothing is analyzed again (every table of the schema was analyzed above).
    expect(await analyzeChangedTables(d)).toEqual([])

    await sql`insert into stats_probe select g, 'w' || g from generate_series(2001, 2100) g`.execute(d)
    expect(await analyzeChangedTables(d)).toEqual([]) // 5%: within the share
    await sql`insert into stats_probe select g, 'w' || g from generate_series(2101, 4000) g`.execute(d)
    expect(await analyzeChangedTables(d)).toEqual(['stats_probe'])
    expect((await statsOf('stats_probe')).reltuples).toBe(4000)
  })

  it('stops between tables when the scheduler stops', async () => {
    const d = db.handle.db
    await sql`create table stats_probe_a (id int)`.execute(d)
    await sql`insert into stats_probe_a select generate_series(1, 500)`.execute(d)
    const stop = new AbortController()
    stop.abort()
    expect(await analyzeChangedTables(d, stop.signal)).toEqual([])
    expect((await statsOf('stats_probe_a')).analyzed).toBe(false)
  })
})
