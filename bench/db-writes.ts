import pg from 'pg'

/**
 * What a database wrote while a load ran, from PostgreSQL's cumulative statistics (issue 26: a
 * read-only load must write nothing): rows inserted, updated and deleted and transactions committed
 * in one database (pg_stat_database), and WAL records of the whole server (pg_stat_wal: other
 * databases' writes count too, so run nothing else meanwhile).
 *
 * The statistics reach the views when a backend reports them, at most once a second while busy and
 * up to 10 s after it went idle (PostgreSQL 15's PGSTAT_IDLE_INTERVAL): `after()` waits that out
 * (BENCH_STATS_WAIT_MS) before it reads.
 */
export interface WriteCounts {
  commits: number
  inserted: number
  updated: number
  deleted: number
  walRecords: number
}

export async function writeCounter(adminUrl: string, database: string) {
  const read = async (): Promise<WriteCounts> => {
    const c = new pg.Client({ connectionString: adminUrl })
    await c.connect()
    try {
      await c.query('select pg_stat_clear_snapshot()')
      const d = await c.query<{ xact_commit: string; tup_inserted: string; tup_updated: string; tup_deleted: string }>(
        'select xact_commit, tup_inserted, tup_updated, tup_deleted from pg_stat_database where datname = $1',
        [database],
      )
      const w = await c.query<{ wal_records: string }>('select wal_records from pg_stat_wal')
      const row = d.rows[0]
      return {
        commits: Number(row?.xact_commit ?? 0),
        inserted: Number(row?.tup_inserted ?? 0),
        updated: Number(row?.tup_updated ?? 0),
        deleted: Number(row?.tup_deleted ?? 0),
        walRecords: Number(w.rows[0]?.wal_records ?? 0),
      }
    } finally {
      await c.end()
    }
  }
  const settle = () => new Promise((r) => setTimeout(r, Number(process.env.BENCH_STATS_WAIT_MS ?? 11_000)))
  let start: WriteCounts | undefined
  return {
    /** Call before the load: waits for earlier statistics to arrive, then takes the baseline. */
    async before(): Promise<void> {
      await settle()
      start = await read()
    },
    /** Call after the load: what it wrote (commits include read-only transactions). */
    async after(): Promise<WriteCounts> {
      await settle()
      const end = await read()
      return {
        commits: end.commits - start!.commits,
        inserted: end.inserted - start!.inserted,
        updated: end.updated - start!.updated,
        deleted: end.deleted - start!.deleted,
        walRecords: end.walRecords - start!.walRecords,
      }
    },
  }
}

/** One line: "N requests: 0 rows inserted, 0 updated, 0 deleted (0 per 1,000 requests), N commits, 0 WAL records". */
export function describeWrites(w: WriteCounts, requests: number): string {
  const rows = w.inserted + w.updated + w.deleted
  const per1000 = requests > 0 ? ((rows / requests) * 1000).toFixed(2) : '–'
  return `${requests} requests: ${w.inserted} rows inserted, ${w.updated} updated, ${w.deleted} deleted (${per1000} per 1,000 requests); ${w.commits} commits (reads commit too); ${w.walRecords} WAL records (whole server)`
}
