import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Arrivals waiting to be gathered into their recipient's arrival email (issue 17.2). An add used
// to open or join the recipient's batch (a notifications row) in its own transaction, which held
// that row locked until commit: every add for one recipient, and every batch of adds that shared a
// recipient with another, waited for the one before. Now the add appends one row here (no row of
// anyone else's is touched), committed with the package, and the notification worker gathers the
// rows into the batches, deleting what it gathered in the same statement (each arrival gathered
// once). A package arrives once: the key drops a repeat.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notification_arrivals')
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('package_id', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text', (c) => c.notNull())
    .addColumn('arrived_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('notification_arrivals_pk', ['sub_id', 'package_id'])
    .execute()
  // Drained within a poll: keep it small on disk too (a queue's dead rows are vacuumed often).
  await sql`alter table notification_arrivals set (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000)`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notification_arrivals').execute()
}
