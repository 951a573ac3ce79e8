import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Recipient notifications (issue 17): each subscription's settings, the notifications outbox
// (written in the same transaction as the package change that causes it) and which packages each
// notification is about. Contacts get `notify` (the unsubscribe link sets it to false).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('contacts')
    .addColumn('notify', 'boolean', (c) => c.notNull().defaultTo(true))
    .execute()

  await db.schema
    .createTable('notification_settings')
    .addColumn('sub_id', 'text', (c) => c.primaryKey())
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('arrival_batch_seconds', 'integer', (c) => c.notNull())
    .addColumn('reminder_after_hours', 'jsonb', (c) => c.notNull())
    .addColumn('final_notice_after_hours', 'double precision')
    .addColumn('templates', 'jsonb', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('notifications')
    .addColumn('notification_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    // REMINDER: 1 for the first step, 2 for the second…; 0 for the other kinds.
    .addColumn('step', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz')
    .addColumn('locked_by', 'text')
    .addColumn('sent_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  // The worker's claim: pending rows in due order.
  await sql`create index notifications_due_idx on notifications (next_attempt_at) where status = 'pending'`.execute(db)
  await sql`create index notifications_list_idx on notifications (sub_id, created_at desc, notification_id)`.execute(db)
  await sql`create index notifications_contact_idx on notifications (sub_id, contact_id)`.execute(db)
  // One open arrival batch per recipient: it takes every arrival until a worker claims it (attempts > 0).
  await sql`create unique index notifications_open_arrival_uq on notifications (sub_id, contact_id)
    where kind = 'ARRIVAL' and status = 'pending' and attempts = 0`.execute(db)

  await db.schema
    .createTable('notification_packages')
    .addColumn('notification_id', 'text', (c) => c.notNull())
    .addColumn('package_id', 'text', (c) => c.notNull())
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('step', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('notification_packages_pk', ['notification_id', 'package_id'])
    .execute()
  await sql`create index notification_packages_package_idx on notification_packages (package_id)`.execute(db)
  // No double reminders: one reminder per package and step, one final notice per package, whichever process computes it.
  await sql`create unique index notification_packages_step_uq on notification_packages (package_id, kind, step)
    where kind in ('REMINDER', 'FINAL_NOTICE')`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notification_packages').execute()
  await db.schema.dropTable('notifications').execute()
  await db.schema.dropTable('notification_settings').execute()
  await db.schema.alterTable('contacts').dropColumn('notify').execute()
}
