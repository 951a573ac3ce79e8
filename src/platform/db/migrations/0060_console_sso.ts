import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Staff single sign-on (issue 28.5): one OpenID Connect client per subscription. The client secret
// is sealed (AES-256-GCM, bound to its subscription), never stored in the clear. The sign-in page
// finds a subscription's settings from the email's domain before it knows the user, so a domain
// belongs to one subscription across the installation (the primary key says so).
//
// `users.password_from_cli`: the password was set by `mailroom users create|password` on the
// server. An admin with such a password keeps password sign-in when a subscription turns it off:
// the break-glass door when the identity provider is down or misconfigured.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sso_settings')
    .addColumn('sub_id', 'text', (c) => c.primaryKey().references('subscriptions.sub_id'))
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('issuer', 'text')
    .addColumn('client_id', 'text')
    .addColumn('client_secret_sealed', 'text')
    .addColumn('provision_users', 'boolean', (c) => c.notNull())
    .addColumn('default_role', 'text', (c) => c.notNull().check(sql`default_role in ('admin', 'clerk')`))
    .addColumn('require_verified_email', 'boolean', (c) => c.notNull())
    .addColumn('password_sign_in', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createTable('sso_email_domains')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull().references('sso_settings.sub_id').onDelete('cascade'))
    .execute()
  await db.schema.createIndex('sso_email_domains_sub_id_idx').on('sso_email_domains').column('sub_id').execute()
  await sql`alter table users add column password_from_cli boolean not null default false`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('password_from_cli').execute()
  await db.schema.dropTable('sso_email_domains').execute()
  await db.schema.dropTable('sso_settings').execute()
}
