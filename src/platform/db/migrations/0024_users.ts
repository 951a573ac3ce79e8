import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// People who sign in to the console (issue 18.2): admins and clerks of one subscription, a clerk
// optionally limited to a site subtree. Sign-in asks for email and password only, so an email names
// one user across the installation (unique on its lower-case form). Passwords are argon2id PHC strings.
//
// Sessions are kept server-side: the cookie holds a random value, the table only its SHA-256, so a
// copy of the table signs no one in. Idle expiry slides `last_seen_at`; `expires_at` is absolute.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull().references('subscriptions.sub_id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'clerk')`))
    .addColumn('site_id', 'text')
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('active')
        .check(sql`status in ('active', 'disabled')`),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('disabled_at', 'timestamptz')
    .execute()
  await sql`create unique index users_email_key on users (lower(email))`.execute(db)
  await db.schema.createIndex('users_sub_id_idx').on('users').column('sub_id').execute()

  await db.schema
    .createTable('user_sessions')
    .addColumn('session_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.user_id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('user_sessions_user_id_idx').on('user_sessions').column('user_id').execute()
  await db.schema.createIndex('user_sessions_expires_at_idx').on('user_sessions').column('expires_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('user_sessions').execute()
  await db.schema.dropTable('users').execute()
}
