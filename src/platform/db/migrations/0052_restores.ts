import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// A restored database records that it is one (issue 31.1): `restores`, one row per restore
// (`mailroom restore`, or `mailroom restore --mark` after pg_restore or a copied data directory).
// `held_work` lists the outbound work the restore held back: emails and webhooks that were pending
// in the backup and older than RESTORE_HOLD_AFTER_MINUTES, which the original may have sent after
// the backup was taken. They wait there for an operator to resend or drop them, per kind.
// item_type: notification | delivery (a row of notifications / webhook_deliveries), notify-event |
// dispatch-event (an outbox event the notifications / the webhook fan-out had not consumed yet);
// kind: email | webhook.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('restores')
    .addColumn('restore_id', 'text', (c) => c.primaryKey())
    .addColumn('restored_at', 'timestamptz', (c) => c.notNull())
    .addColumn('snapshot_at', 'timestamptz')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('hold_after_seconds', 'integer', (c) => c.notNull())
    .execute()
  await db.schema
    .createTable('held_work')
    .addColumn('item_type', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('restore_id', 'text', (c) => c.notNull().references('restores.restore_id'))
    .addColumn('since', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('held_work_pk', ['item_type', 'item_id'])
    .execute()
  await sql`create index held_work_kind_idx on held_work (kind, item_type)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('held_work').execute()
  await db.schema.dropTable('restores').execute()
}
