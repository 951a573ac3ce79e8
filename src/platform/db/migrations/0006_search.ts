import { sql, type Kysely } from 'kysely'

// Indexes that fit the search queries (DESIGN.md "Search"); each is named after the query it serves,
// and scripts/explain-search.ts checks with EXPLAIN on a large table that the planner uses it.
export async function up(db: Kysely<any>): Promise<void> {
  // trackingNumber:<v> with searchPosition=starts → tracking_number LIKE 'V%'
  await sql`create index packages_tn_prefix_idx on packages (sub_id, tracking_number text_pattern_ops)`.execute(db)
  // searchPosition=ends → reverse(tracking_number) LIKE reverse('V') || '%'
  await sql`create index packages_tn_suffix_idx on packages (sub_id, reverse(tracking_number) text_pattern_ops)`.execute(
    db,
  )
  // contains (3+ characters) → trigram
  await sql`create index packages_tn_trgm_idx on packages using gin (tracking_number gin_trgm_ops)`.execute(db)
  // status (+ UNDELIVERED) listings, newest first; site listings use packages_site_status_idx
  await sql`create index packages_status_created_idx on packages (sub_id, current_status, created_at desc)`.execute(db)
  await sql`create index packages_updated_idx on packages (sub_id, updated_at desc)`.execute(db)
  // name searches go through the contacts, then to packages by contact
  await sql`create index packages_receiver_idx on packages (sub_id, receiver_id, created_at desc)`.execute(db)
  await sql`create index packages_sender_idx on packages (sub_id, sender_id)`.execute(db)
  await sql`create index packages_given_to_idx on packages (sub_id, given_to_id)`.execute(db)
  await sql`create index contacts_name_trgm_idx on contacts using gin (lower(name) gin_trgm_ops)`.execute(db)
  await sql`create index packages_location_trgm_idx on packages using gin (lower(package_location) gin_trgm_ops)`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of [
    'packages_location_trgm_idx',
    'contacts_name_trgm_idx',
    'packages_given_to_idx',
    'packages_sender_idx',
    'packages_receiver_idx',
    'packages_updated_idx',
    'packages_status_created_idx',
    'packages_tn_trgm_idx',
    'packages_tn_suffix_idx',
    'packages_tn_prefix_idx',
  ]) {
    await sql`drop index ${sql.id(name)}`.execute(db)
  }
}
