import { sql } from 'kysely'
import type { PeriodicTask } from '../jobs/scheduler.js'
import type { Db } from './database.js'

/**
 * A table is analyzed again once its size in pages differs from the one its last ANALYZE recorded
 * by more than this share (PostgreSQL's autovacuum_analyze_scale_factor is 0.1 of the rows) and
 * by more than one page.
 */
const CHANGED_SHARE = 0.1

/**
 * Planner statistics for the embedded database. PostgreSQL's autovacuum analyzes a table once
 * enough of it has changed; PGlite runs PostgreSQL in single-user mode, where no autovacuum runs
 * and the counters it reads (pg_stat_user_tables.n_mod_since_analyze) stay at zero. Left alone, no
 * table of an embedded database is ever analyzed and the planner guesses every size: the label
 * matcher's name-word lookup, for one, then compared each printed word with every word of the
 * directory (8 ms at 2,000 words, 30 ms at 8,000) instead of reading the trigram index (1 ms).
 *
 * A table's size in pages stands in for the counters: relpages is what the last ANALYZE (or
 * VACUUM, or index build) saw, pg_relation_size what is there now; a table never analyzed has
 * reltuples -1. Returns the tables analyzed, one statement each (on PGlite each holds the one
 * connection for the time it samples: 30,000 rows at most, whatever the table's size).
 */
export async function analyzeChangedTables(db: Db, signal?: AbortSignal): Promise<string[]> {
  const { rows } = await sql<{ table: string }>`
    select c.relname as table
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'r'
      and (c.reltuples < 0
        or abs(pg_relation_size(c.oid) / current_setting('block_size')::int - c.relpages)
           > greatest(1, c.relpages * ${CHANGED_SHARE}::float8))
    order by c.relname`.execute(db)
  const analyzed: string[] = []
  for (const { table } of rows) {
    if (signal?.aborted) break
    await sql`analyze ${sql.table(table)}`.execute(db)
    analyzed.push(table)
  }
  return analyzed
}

/** analyzeChangedTables every `everyMs` (a minute: the look is one read of pg_class): for the embedded database only, where no autovacuum runs. */
export function embeddedStatisticsTask(db: Db, everyMs = 60_000): PeriodicTask {
  return { name: 'embedded statistics', everyMs, run: (signal) => analyzeChangedTables(db, signal) }
}
