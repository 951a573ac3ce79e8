import pg from 'pg'

/**
 * What a database wrote while a load ran, from PostgreSQL's cumulative statistics (issue 26: a
 * read-only load must write nothing): rows inserted, updated and deleted in the service's tables
 * (pg_stat_user_tables, each table named), the same in the whole database with the system catalogs
 * (pg_stat_database: autovacuum's ANALYZE of tables grown before the load writes pg_statistic rows
 * there, which no request caused), transactions committed, and WAL records of the whole server
 * (pg_stat_wal: other databases' writes count too, so run nothing else meanwhile).
 *
 * The statistics reach the views when a backend reports them, at most once a second while busy and
 * up to 10 s after it went idle (PostgreSQL 15's PGSTAT_IDLE_INTERVAL): `after()` waits that out
 * (BENCH_STATS_WAIT_MS) before it reads.
 */
export interface WriteCounts {
  /** Rows written to the service's own tables, by table ("ins/upd/del"), tables without writes absent. */
  tables: Record<string, string>
  tableRows: number
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
      const url = new URL(adminUrl)
      url.pathname = `/${database}`
      const own = new pg.Client({ connectionString: url.toString() })
      await own.connect()
      const t = await own
        .query<{ relname: string; n_tup_ins: string; n_tup_upd: string; n_tup_del: string }>(
          'select relname, n_tup_ins, n_tup_upd, n_tup_del from pg_stat_user_tables',
        )
        .finally(() => own.end())
      return {
        tables: Object.fromEntries(
          t.rows.map((r) => [r.relname, [r.n_tup_ins, r.n_tup_upd, r.n_tup_del].map(Number).join('/')]),
        ),
        tableRows: 0,
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
  /**
   * Deferred work still to come from earlier writes: emails waiting (an arrival batch waits a minute
   * before anything is written) and outbox events no notification pass has read yet; on a release
   * before the events consumer (migration 0040), its arrival queue instead.
   */
  const pendingWork = async (): Promise<number> => {
    const url = new URL(adminUrl)
    url.pathname = `/${database}`
    const c = new pg.Client({ connectionString: url.toString() })
    await c.connect()
    try {
      const { rows } = await c.query<{ n: string }>(`
        select (select count(*) from notifications where status = 'pending')
          + coalesce((select count(*) from package_events where notified_at is null
               and variant = 'tracking' and event_name in ('Acceptance', 'Delivered', 'PickedUp')
               and exists (select 1 from information_schema.columns
                           where table_name = 'package_events' and column_name = 'notified_at')), 0) as n`)
      return Number(rows[0]?.n ?? 0)
    } catch {
      // An earlier release's schema (no notified_at): its pending emails alone.
      const { rows } = await c.query<{ n: string }>(`select count(*) as n from notifications where status = 'pending'`)
      return Number(rows[0]?.n ?? 0)
    } finally {
      await c.end()
    }
  }
  const settle = () => new Promise((r) => setTimeout(r, Number(process.env.BENCH_STATS_WAIT_MS ?? 11_000)))
  let start: WriteCounts | undefined
  return {
    /**
     * Call before the load: waits for earlier statistics to arrive and for the service's deferred
     * work on earlier writes (the seed's adds: their events and emails) to end, no table written
     * for two reads in a row (at most BENCH_QUIESCE_MS, 90 s), then takes the baseline.
     */
    async before(): Promise<void> {
      await settle()
      start = await read()
      const until = Date.now() + Number(process.env.BENCH_QUIESCE_MS ?? 150_000)
      // Still means two reads in a row with nothing written *after* the deferred work ended: its own
      // last writes reach the statistics up to 10 s late, so an end seen while the counts stood still
      // would otherwise put those writes inside the measured load (200 package events once, side by side).
      for (let still = 0; still < 2 && Date.now() < until;) {
        await new Promise((r) => setTimeout(r, 6_000))
        const now = await read()
        const quiet = JSON.stringify(now.tables) === JSON.stringify(start.tables) && (await pendingWork()) === 0
        still = quiet ? still + 1 : 0
        start = now
      }
    },
    /** Call after the load: what it wrote (commits include read-only transactions). */
    async after(): Promise<WriteCounts> {
      await settle()
      const end = await read()
      const tables: Record<string, string> = {}
      let tableRows = 0
      for (const [name, counts] of Object.entries(end.tables)) {
        const was = (start!.tables[name] ?? '0/0/0').split('/').map(Number)
        const delta = counts.split('/').map((n, i) => Number(n) - was[i]!)
        if (delta.some((n) => n !== 0)) tables[name] = delta.join('/')
        tableRows += delta.reduce((a, n) => a + n, 0)
      }
      return {
        tables,
        tableRows,
        commits: end.commits - start!.commits,
        inserted: end.inserted - start!.inserted,
        updated: end.updated - start!.updated,
        deleted: end.deleted - start!.deleted,
        walRecords: end.walRecords - start!.walRecords,
      }
    },
  }
}

/**
 * One line: "N requests: 0 rows written to the service's tables (0 per 1,000 requests) {table: ins/upd/del};
 * with the system catalogs: … ; N commits, N WAL records".
 */
export function describeWrites(w: WriteCounts, requests: number): string {
  const per1000 = requests > 0 ? ((w.tableRows / requests) * 1000).toFixed(2) : '–'
  const tables = Object.keys(w.tables).length > 0 ? ` ${JSON.stringify(w.tables)} (inserted/updated/deleted)` : ''
  return `${requests} requests: ${w.tableRows} rows written to the service's tables (${per1000} per 1,000 requests)${tables}; with the system catalogs (autovacuum's ANALYZE included): ${w.inserted} inserted, ${w.updated} updated, ${w.deleted} deleted; ${w.commits} commits (reads commit too); ${w.walRecords} WAL records (whole server)`
}
