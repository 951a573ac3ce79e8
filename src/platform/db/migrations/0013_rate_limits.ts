import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Fixed-window request counters every API process shares (issue 14.3: rate limits that hold
// across processes). One row per key (a subscription, a client address, a quota such as a
// subscription's webhook test sends), bumped by one atomic upsert per request; a window that has
// ended starts again at 1. Times are epoch milliseconds of the service's clock.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rate_limit_windows')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('window_ends_at', 'bigint', (c) => c.notNull())
    .addColumn('hits', 'bigint', (c) => c.notNull())
    .execute()
  // Housekeeping of ended windows (a flood of addresses must not grow the table for ever).
  await db.schema.createIndex('rate_limit_windows_ends_idx').on('rate_limit_windows').column('window_ends_at').execute()
  await sql`alter table rate_limit_windows set (fillfactor = 70)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('rate_limit_windows').execute()
}
