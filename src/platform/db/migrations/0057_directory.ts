import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// The directory keeps itself (issue 28): contacts provisioned by SCIM carry the identity
// provider's userName (unique per subscription, ignoring case, RFC 7643 §4.1.1 caseExact false)
// and the attributes mailroom does not map, so a GET returns what the provider sent. Delegates:
// contacts who may collect for another (a group contact's members). SCIM bearer tokens: only an
// HMAC of each is kept. LDAP settings: one per subscription, the bind password sealed.
// `departure_noted_at`: when a departed recipient's waiting parcels were last flagged (the event
// is written once per departure).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('contacts')
    .addColumn('user_name', 'text')
    .addColumn('scim_attributes', 'jsonb')
    .addColumn('departure_noted_at', 'timestamptz')
    .execute()
  await sql`create unique index contacts_user_name_idx on contacts (sub_id, lower(user_name))
    where user_name is not null and deleted_at is null`.execute(db)

  await db.schema
    .createTable('contact_delegates')
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text', (c) => c.notNull())
    .addColumn('delegate_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('contact_delegates_pk', ['sub_id', 'contact_id', 'delegate_id'])
    .execute()
  await db.schema
    .createIndex('contact_delegates_delegate_idx')
    .on('contact_delegates')
    .columns(['sub_id', 'delegate_id'])
    .execute()

  await db.schema
    .createTable('scim_tokens')
    .addColumn('token_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute()
  await db.schema.createIndex('scim_tokens_sub_idx').on('scim_tokens').columns(['sub_id', 'created_at']).execute()

  await db.schema
    .createTable('ldap_settings')
    .addColumn('sub_id', 'text', (c) => c.primaryKey())
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('bind_dn', 'text', (c) => c.notNull())
    .addColumn('bind_password_sealed', 'text', (c) => c.notNull())
    .addColumn('base_dn', 'text', (c) => c.notNull())
    .addColumn('filter', 'text', (c) => c.notNull())
    .addColumn('mapping', 'jsonb', (c) => c.notNull())
    .addColumn('interval_minutes', 'integer', (c) => c.notNull())
    .addColumn('next_run_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_run', 'jsonb')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .alterTable('pickups')
    .addColumn('delegate', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pickups').dropColumn('delegate').execute()
  await db.schema.dropTable('ldap_settings').execute()
  await db.schema.dropTable('scim_tokens').execute()
  await db.schema.dropTable('contact_delegates').execute()
  await sql`drop index contacts_user_name_idx`.execute(db)
  await db.schema
    .alterTable('contacts')
    .dropColumn('user_name')
    .dropColumn('scim_attributes')
    .dropColumn('departure_noted_at')
    .execute()
}
