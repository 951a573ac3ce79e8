import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Failed client authentications counted for every process of a deployment (issue 16.2): behind N
// API processes an attacker gets the limits of one, not N times them. One row per key (a client id
// and address pair, an address, a client id), as the in-memory limiter keeps them: the failures
// of the current window, when it ends, the lock and its back-off, and when the key is forgotten.
// Times are epoch milliseconds of the service's clock.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('auth_failures')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('max_failures', 'integer', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_ends_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint', (c) => c.notNull())
    .addColumn('strikes', 'integer', (c) => c.notNull())
    .addColumn('forget_at', 'bigint', (c) => c.notNull())
    .execute()
  // Forgotten keys are swept by the process that counts (a flood of addresses must not grow the table for ever).
  await db.schema.createIndex('auth_failures_forget_idx').on('auth_failures').column('forget_at').execute()
  await sql`alter table auth_failures set (fillfactor = 70)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('auth_failures').execute()
}
