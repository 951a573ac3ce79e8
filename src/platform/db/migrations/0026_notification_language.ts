import type { Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// The language of a subscription's emails (issue 17 gap 5): templates may be given per language;
// this one is used for every recipient (contacts have no language of their own yet).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('notification_settings')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('notification_settings').dropColumn('language').execute()
}
