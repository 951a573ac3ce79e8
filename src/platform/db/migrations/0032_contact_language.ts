import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// A contact's own language for the emails it gets (issue 17: per-language templates). Null: the
// subscription's notification language.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table contacts add column language text`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('contacts').dropColumn('language').execute()
}
