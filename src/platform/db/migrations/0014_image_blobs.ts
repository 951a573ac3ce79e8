import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Image bytes kept in the database (issue 16.1): every API process behind a load balancer reads
// what any other one stored. An image is cut into parts of at most 256 KiB, one row each, so a
// download streams part by part and never holds a whole 10 MB image in a process's memory, and
// no single value comes near a TOAST-ed megabyte. `storage_key` is the key of `images.storage_key`
// (no foreign key: the bytes are written before the row that names them, and outlive it by a
// moment when a temporary image is purged).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('image_blobs')
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('image_blobs_pkey', ['storage_key', 'part'])
    .execute()
  // Already compressed (JPEG, PNG, WebP): compressing again costs CPU and saves nothing.
  await sql`alter table image_blobs alter column bytes set storage external`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('image_blobs').execute()
}
