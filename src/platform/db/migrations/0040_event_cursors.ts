import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Events flow one way (issue 24.2): the notifications consume the outbox through a cursor, as a
// consumer of their own, instead of a second outbox (notification_arrivals) that every package
// write filled inside its transaction.
//
// A cursor is a position in (tx_id, event_id) order, where tx_id is the writing transaction's id
// (pg_current_xact_id(): 64 bits, never wraps). A consumer reads only events of transactions older
// than its snapshot's xmin, which have all finished: a transaction that took its id earlier but
// commits later can never appear behind a cursor that already moved past it (the gap an ordinary
// sequence would leave). Rows written before this migration take tx_id 0: consumed.
//
// The arrivals still queued when this runs are carried over: their Acceptance events take tx_id 2
// (no real transaction has an id below 3) and the notifications cursor starts at tx_id 1, so the
// cursor hands them over once, as the queue would have.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table package_events add column tx_id xid8 not null default '0'`.execute(db)
  await sql`alter table package_events alter column tx_id set default pg_current_xact_id()`.execute(db)
  await sql`create index package_events_tx_idx on package_events (tx_id, event_id)`.execute(db)
  await db.schema
    .createTable('event_cursors')
    .addColumn('consumer', 'text', (c) => c.primaryKey())
    .addColumn('tx_id', sql`xid8`, (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await sql`
    update package_events e set tx_id = '2'
    from notification_arrivals a
    where e.sub_id = a.sub_id and e.package_id = a.package_id and e.variant = 'tracking' and e.event_name = 'Acceptance'`.execute(
    db,
  )
  await sql`insert into event_cursors (consumer, tx_id, event_id) values ('notifications', '1', '')`.execute(db)
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
  await db.schema.dropTable('event_cursors').execute()
  await sql`drop index package_events_tx_idx`.execute(db)
  await sql`alter table package_events drop column tx_id`.execute(db)
}
