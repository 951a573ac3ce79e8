import type { Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// A site's opening hours (issue 17 gap 6): free text ("Mon–Fri 8:00–18:00"), shown in the arrival
// emails of parcels waiting there or below it. Null: none set (omitted from the site record).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('inbound_sites').addColumn('opening_hours', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('inbound_sites').dropColumn('opening_hours').execute()
}
