import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// A password the server generated (an admin created the user without one, or reset it) is known to
// whoever read it off the admin's screen: the user must choose their own at first sign-in (issue 25.6).
// Until they do, their session may only change the password or sign out.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column must_change_password boolean not null default false`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('must_change_password').execute()
}
