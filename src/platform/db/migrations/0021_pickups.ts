import { sql, type Kysely } from 'kysely'

const textArray = sql`text[]`

// Frozen once landed: never edit, add a new numbered migration instead.
//
// One row per one-step pickup (issue 17.4): which waiting packages were handed over together, by
// which code or for which contact, to whom (a contact, or a name for someone collecting on the
// receiver's behalf), with which proof (the images: signature, photo), by which clerk. Each package's DELIVERED
// activity names its pickup (package_activities.pickup_id).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pickups')
    .addColumn('pickup_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('code', 'text')
    .addColumn('contact_id', 'text')
    .addColumn('given_to_contact_id', 'text')
    .addColumn('given_to_name', 'text', (c) => c.notNull())
    .addColumn('package_ids', textArray, (c) => c.notNull())
    .addColumn('images', 'jsonb', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('user_name', 'text', (c) => c.notNull())
    .addColumn('clerk', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('pickups_sub_idx').on('pickups').columns(['sub_id', 'created_at']).execute()
  await db.schema.alterTable('package_activities').addColumn('pickup_id', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('package_activities').dropColumn('pickup_id').execute()
  await db.schema.dropTable('pickups').execute()
}
