import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
// Every table carries sub_id and every index that serves a lookup leads with it (tenancy, and
// Citus-style distribution by sub_id later).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db)

  await db.schema
    .createTable('locations')
    .addColumn('location_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull().references('subscriptions.sub_id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('address', 'jsonb', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('carrier_ids', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await sql`create unique index locations_sub_name_uq on locations (sub_id, lower(name))`.execute(db)

  await db.schema
    .createTable('carriers')
    .addColumn('carrier_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.references('subscriptions.sub_id')) // null: built into the catalogue
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scac', 'text')
    .addColumn('barcode_aware', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('services', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await sql`create unique index carriers_sub_name_uq on carriers (coalesce(sub_id, ''), lower(name))`.execute(db)

  await db.schema
    .createTable('inbound_sites')
    .addColumn('site_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull().references('subscriptions.sub_id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text', (c) => c.references('inbound_sites.site_id'))
    .addColumn('location_id', 'text', (c) => c.references('locations.location_id'))
    // Ids root→parent and names root→self, kept right on create, rename and move.
    .addColumn('ancestor_ids', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('path_names', sql`text[]`, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('is_primary', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .execute()
  await sql`create unique index inbound_sites_primary_uq on inbound_sites (sub_id) where is_primary and deleted_at is null`.execute(
    db,
  )
  await sql`create unique index inbound_sites_sibling_name_uq on inbound_sites (sub_id, coalesce(parent_id, ''), lower(name)) where deleted_at is null`.execute(
    db,
  )
  await sql`create index inbound_sites_parent_idx on inbound_sites (sub_id, parent_id)`.execute(db)
  await sql`create index inbound_sites_ancestors_idx on inbound_sites using gin (ancestor_ids)`.execute(db)
  await sql`create index inbound_sites_location_idx on inbound_sites (sub_id, location_id)`.execute(db)

  await db.schema
    .createTable('contacts')
    .addColumn('contact_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull().references('subscriptions.sub_id'))
    .addColumn('contact_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('company', 'text')
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('personal_id', 'text')
    .addColumn('location_site_id', 'text', (c) => c.references('inbound_sites.site_id'))
    .addColumn('mail_stop_site_id', 'text', (c) => c.references('inbound_sites.site_id'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    // lower case, accents and punctuation removed, spaces collapsed: what decode matches on.
    .addColumn('match_name', 'text', (c) => c.notNull())
    .addColumn('match_company', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .execute()
  await sql`create index contacts_name_prefix_idx on contacts (sub_id, lower(name) text_pattern_ops)`.execute(db)
  await sql`create index contacts_email_prefix_idx on contacts (sub_id, lower(email) text_pattern_ops)`.execute(db)
  await sql`create index contacts_personal_id_prefix_idx on contacts (sub_id, lower(personal_id) text_pattern_ops)`.execute(
    db,
  )
  await sql`create index contacts_match_idx on contacts (sub_id, match_name)`.execute(db)
  await sql`create index contacts_match_company_idx on contacts (sub_id, match_company) where match_company is not null`.execute(
    db,
  )

  await db.schema
    .createTable('custom_fields')
    .addColumn('custom_field_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull().references('subscriptions.sub_id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('ACTIVE'))
    .addColumn('data_type', 'text', (c) => c.notNull())
    .addColumn('required', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('options', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .execute()
  await sql`create unique index custom_fields_sub_name_uq on custom_fields (sub_id, lower(name)) where deleted_at is null`.execute(
    db,
  )

  await sql`create sequence tracking_number_seq`.execute(db)

  await db.schema
    .createTable('packages')
    .addColumn('package_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull().references('subscriptions.sub_id'))
    .addColumn('tracking_number', 'text', (c) => c.notNull())
    .addColumn('asset_type', 'text', (c) => c.notNull().defaultTo('PACKAGE'))
    .addColumn('carrier_id', 'text', (c) => c.references('carriers.carrier_id'))
    .addColumn('current_status', 'text', (c) => c.notNull())
    .addColumn('damaged', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('archived', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('timezone', 'integer')
    .addColumn('sender_id', 'text', (c) => c.references('contacts.contact_id'))
    .addColumn('receiver_id', 'text', (c) => c.references('contacts.contact_id'))
    .addColumn('given_to_id', 'text', (c) => c.references('contacts.contact_id'))
    .addColumn('comment', 'text')
    .addColumn('confirmation_type', 'text')
    .addColumn('additional_confirmation_type', 'text')
    .addColumn('custom_fields', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('site_id', 'text', (c) => c.references('inbound_sites.site_id'))
    .addColumn('package_location', 'text')
    .addColumn('locker_bank', 'text')
    .addColumn('locker_unit', 'text')
    .addColumn('user_name', 'text', (c) => c.notNull())
    .addColumn('receive_clerk', 'text')
    .addColumn('delivery_clerk', 'text')
    .addColumn('delivery_time', 'timestamptz')
    .addColumn('current_route', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('activity_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('event_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('archived_at', 'timestamptz')
    .execute()
  // DESIGN.md: uniqueness under concurrency comes from the database, not a read-then-write check.
  await sql`create unique index packages_active_tracking_uq on packages (sub_id, tracking_number) where not archived`.execute(
    db,
  )
  await sql`create index packages_tracking_idx on packages (sub_id, tracking_number, created_at desc)`.execute(db)
  await sql`create index packages_created_idx on packages (sub_id, created_at desc)`.execute(db)
  await sql`create index packages_site_status_idx on packages (sub_id, site_id, current_status, created_at desc)`.execute(
    db,
  )

  await db.schema
    .createTable('package_activities')
    .addColumn('activity_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('package_id', 'text', (c) => c.notNull().references('packages.package_id'))
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.references('inbound_sites.site_id'))
    .addColumn('package_location', 'text')
    .addColumn('locker_bank', 'text')
    .addColumn('locker_unit', 'text')
    .addColumn('damaged', 'boolean', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('user_name', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await sql`create unique index package_activities_seq_uq on package_activities (package_id, sequence)`.execute(db)

  await db.schema
    .createTable('images')
    .addColumn('image_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull().references('subscriptions.sub_id'))
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('byte_size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('package_id', 'text', (c) => c.references('packages.package_id'))
    .addColumn('activity_id', 'text', (c) => c.references('package_activities.activity_id'))
    .addColumn('image_level', 'text')
    .addColumn('image_type', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    // Set while the image is a temporary upload; cleared when a package takes it.
    .addColumn('expires_at', 'timestamptz')
    .execute()
  await sql`create index images_package_idx on images (sub_id, package_id)`.execute(db)
  await sql`create index images_expiry_idx on images (expires_at) where expires_at is not null`.execute(db)

  // The transactional outbox: written with the change, read by the webhook fan-out.
  await db.schema
    .createTable('package_events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('package_id', 'text', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('event_name', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('dispatched_at', 'timestamptz')
    .execute()
  await sql`create index package_events_pending_idx on package_events (occurred_at) where dispatched_at is null`.execute(
    db,
  )
  await sql`create index package_events_package_idx on package_events (package_id, sequence)`.execute(db)

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_type', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['sub_id', 'idempotency_key'])
    .execute()
  // The housekeeping purge walks keys by age.
  await sql`create index idempotency_keys_created_idx on idempotency_keys (created_at)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'idempotency_keys',
    'package_events',
    'images',
    'package_activities',
    'packages',
    'custom_fields',
    'contacts',
    'inbound_sites',
    'carriers',
    'locations',
  ]) {
    await db.schema.dropTable(t).execute()
  }
  await sql`drop sequence tracking_number_seq`.execute(db)
}
