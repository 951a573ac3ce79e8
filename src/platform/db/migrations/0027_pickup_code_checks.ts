import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Pickup codes (issue 17 gaps 3 and 8). pickup_code_checks: one row while a subscription's pickup
// by code is being checked (limit, look-up, count of a wrong code), so that the check and the count
// are one step for every process: a parallel burst of wrong codes is counted one after the other.
// `held_until` frees the slot of a process that died holding it. The index serves the purge of
// pickup_codes whose packages are all finished (housekeeping), which reads codes by age.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pickup_code_checks')
    .addColumn('sub_id', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('held_until', 'timestamptz', (c) => c.notNull())
    .execute()
  await sql`create index pickup_codes_created_idx on pickup_codes (created_at)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists pickup_codes_created_idx`.execute(db)
  await db.schema.dropTable('pickup_code_checks').execute()
}
