import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Events flow one way (issue 24.2): the notifications consume the outbox as the webhook fan-out
// does (its dispatched_at), with a mark of their own, instead of a second outbox
// (notification_arrivals) that every package write filled inside its transaction.
//
// - notified_at: set by the notifications' consumer in the transaction that writes what the event
//   calls for. Only the events they read are ever unmarked, so the partial index holds just the
//   arrivals and hand-overs still to consume. Rows written before this migration are marked (the
//   column's default while it is added), except the arrivals still queued in notification_arrivals:
//   carried over, unmarked.
// - tx_id: the writing transaction (pg_current_xact_id()): the events of one write share it, so a
//   consumer can take a write whole (one receipt per pickup). Older rows: 0.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table package_events add column tx_id xid8 not null default '0'`.execute(db)
  await sql`alter table package_events alter column tx_id set default pg_current_xact_id()`.execute(db)
  await sql`alter table package_events add column notified_at timestamptz default now()`.execute(db)
  await sql`alter table package_events alter column notified_at drop default`.execute(db)
  await sql`
    update package_events e set notified_at = null
    from notification_arrivals a
    where e.sub_id = a.sub_id and e.package_id = a.package_id and e.variant = 'tracking' and e.event_name = 'Acceptance'`.execute(
    db,
  )
  await sql`
    create index package_events_unnotified_idx on package_events (tx_id, event_id)
    where notified_at is null and variant = 'tracking' and event_name in ('Acceptance', 'Delivered', 'PickedUp')`.execute(
    db,
  )
  await db.schema.dropTable('notification_arrivals').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // As migration 0028 made it (arrivals not consumed yet are not carried back).
  await db.schema
    .createTable('notification_arrivals')
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('package_id', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text', (c) => c.notNull())
    .addColumn('arrived_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('notification_arrivals_pk', ['sub_id', 'package_id'])
    .execute()
  await sql`alter table notification_arrivals set (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000)`.execute(
    db,
  )
  await sql`drop index package_events_unnotified_idx`.execute(db)
  await sql`alter table package_events drop column notified_at`.execute(db)
  await sql`alter table package_events drop column tx_id`.execute(db)
}
