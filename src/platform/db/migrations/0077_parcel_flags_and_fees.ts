import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Issue 30, flags and fees. A parcel's flags (PERISHABLE, MEDICATION, …: the vocabulary is the
// packages domain's, checked on input), searched as `flags:<flag>` through a GIN index of the
// flagged ones only (most parcels carry none). `site_arrived_at`: when it reached the site it waits
// at, where its holding fee counts from; null on rows written before (read as created_at).
// A site's holding fee, inherited as signatureRule is: null per-day amount = the nearest ancestor's.
// The pickup keeps the fees it charged (its receipt). The perishable reminder interval is a
// notification setting beside the reminder schedule it shortens.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table packages add column flags text[] not null default '{}', add column site_arrived_at timestamptz`.execute(
    db,
  )
  await sql`create index packages_flags_idx on packages using gin (sub_id, flags) where flags <> '{}'`.execute(db)
  await sql`alter table inbound_sites
    add column holding_fee_free_days integer check (holding_fee_free_days between 0 and 3650),
    add column holding_fee_per_day integer check (holding_fee_per_day >= 0),
    add column holding_fee_currency text check (holding_fee_currency ~ '^[A-Z]{3}$'),
    add column holding_fee_cap integer check (holding_fee_cap >= 0)`.execute(db)
  await sql`alter table pickups add column holding_fees jsonb`.execute(db)
  await sql`alter table notification_settings add column perishable_reminder_after_hours double precision`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table notification_settings drop column perishable_reminder_after_hours`.execute(db)
  await sql`alter table pickups drop column holding_fees`.execute(db)
  await sql`alter table inbound_sites drop column holding_fee_free_days, drop column holding_fee_per_day,
    drop column holding_fee_currency, drop column holding_fee_cap`.execute(db)
  await sql`drop index packages_flags_idx`.execute(db)
  await sql`alter table packages drop column flags, drop column site_arrived_at`.execute(db)
}
