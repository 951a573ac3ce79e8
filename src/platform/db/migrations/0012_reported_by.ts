import type { Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// `X-User-Name` is what the API client says about who acts: an activity keeps it as reported_by,
// beside user_name, which is always the authenticated client id.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('package_activities').addColumn('reported_by', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('package_activities').dropColumn('reported_by').execute()
}
