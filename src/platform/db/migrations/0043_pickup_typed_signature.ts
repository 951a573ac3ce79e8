import { type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// A keyboard user's signature (issue 25 item 4): the collector's full name, typed, kept with the
// pickup as typed (not drawn). Null: the pickup had no typed signature.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pickups').addColumn('typed_signature', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pickups').dropColumn('typed_signature').execute()
}
