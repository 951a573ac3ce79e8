import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// A console user lists and ends their own sessions (issue 18): each session gets a public id,
// unrelated to the cookie value and its hash (knowing the id signs no one in), and the browser's
// User-Agent as it signed in, so the user can tell their sessions apart. Sessions open before this
// migration get a random id.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('user_sessions').addColumn('session_id', 'text').addColumn('user_agent', 'text').execute()
  await sql`update user_sessions set session_id = 'ses_' || md5(random()::text || session_hash)`.execute(db)
  await sql`alter table user_sessions alter column session_id set not null`.execute(db)
  await db.schema
    .createIndex('user_sessions_session_id_key')
    .on('user_sessions')
    .column('session_id')
    .unique()
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('user_sessions_session_id_key').execute()
  await db.schema.alterTable('user_sessions').dropColumn('user_agent').dropColumn('session_id').execute()
}
