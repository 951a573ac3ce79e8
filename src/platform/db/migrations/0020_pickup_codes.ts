import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Pickup codes (issue 17.4). A package that arrives waiting carries the short code its recipient
// shows at the desk; a recipient's waiting parcels share one. pickup_codes is the registry of every
// code a subscription has handed out: its primary key keeps a code unique within the subscription
// for as long as the row is kept, so a code is never handed out again after it was used, and a
// used code is told apart from a wrong one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('packages').addColumn('pickup_code', 'text').execute()
  // search=pickupCode:… and the pickup's resolution by code: an index probe.
  await sql`create index packages_pickup_code_idx on packages (sub_id, pickup_code) where pickup_code is not null`.execute(
    db,
  )
  await db.schema
    .createTable('pickup_codes')
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    // The recipient it was made for; null for a parcel without a receiver contact (a code of its own).
    .addColumn('contact_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('pickup_codes_pk', ['sub_id', 'code'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('pickup_codes').execute()
  await sql`drop index if exists packages_pickup_code_idx`.execute(db)
  await db.schema.alterTable('packages').dropColumn('pickup_code').execute()
}
