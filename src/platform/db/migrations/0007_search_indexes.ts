import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
// The search indexes 0006 left out (review of issue 5): every searchable field and every sort order
// has an index serving it, so a search costs the same at a million packages as at a thousand.
// bench/explain-search.ts and test/search/explain.test.ts check with EXPLAIN that each is used.
export async function up(db: Kysely<any>): Promise<void> {
  // packageId starts / ends. Ids are generated lower case, so the value is lowered, the column is not.
  await sql`create index packages_id_prefix_idx on packages (sub_id, package_id text_pattern_ops)`.execute(db)
  await sql`create index packages_id_suffix_idx on packages (sub_id, reverse(package_id) text_pattern_ops)`.execute(db)

  // contains on the free-text columns (trigram, 3+ characters).
  await sql`create index packages_comment_trgm_idx on packages using gin (lower(comment) gin_trgm_ops)`.execute(db)
  await sql`create index packages_locker_bank_trgm_idx on packages using gin (lower(locker_bank) gin_trgm_ops)`.execute(
    db,
  )

  // Custom-field values live in a jsonb array [{customFieldId, value}]. Their values as one lowered
  // JSON array text (["finance","po-17"]) are what a trigram index can hold; the search looks for the
  // value JSON-escaped in it, then rechecks the exact value (and, for customFields.<name>, the field)
  // on the rows the index returns. A plain SQL expression, so PostgreSQL inlines it (query and index
  // alike) instead of calling a function per row.
  await sql`
    create function package_custom_values(fields jsonb) returns text
      language sql immutable strict parallel safe
      as $$ select lower(jsonb_path_query_array(fields, '$[*].value')::text) $$`.execute(db)
  await sql`create index packages_custom_values_trgm_idx on packages using gin (package_custom_values(custom_fields) gin_trgm_ops)`.execute(
    db,
  )

  // Second-tier name search: the contacts' email, personal id and company, contains.
  await sql`create index contacts_email_trgm_idx on contacts using gin (lower(email) gin_trgm_ops)`.execute(db)
  await sql`create index contacts_personal_id_trgm_idx on contacts using gin (lower(personal_id) gin_trgm_ops)`.execute(
    db,
  )
  await sql`create index contacts_company_trgm_idx on contacts using gin (lower(company) gin_trgm_ops)`.execute(db)

  // Sort orders, each ending in package_id (the tiebreaker) so pages and export batches read
  // (key, package_id) > (last key, last id) straight from the index.
  await sql`create index packages_status_id_idx on packages (sub_id, current_status, package_id)`.execute(db)
  // deliveryTime: the delivered by time, then the undelivered (no time) by id alone. A partial index
  // per part, because \`delivery_time is null\` does not let the planner read the full index in id order.
  await sql`create index packages_delivery_idx on packages (sub_id, delivery_time, package_id) where delivery_time is not null`.execute(
    db,
  )
  await sql`create index packages_undelivered_idx on packages (sub_id, package_id) where delivery_time is null`.execute(
    db,
  )
  // receiver.name: contacts walked in name order, then each one's packages (packages_receiver_idx);
  // packages without a receiver sort last, by id.
  await sql`create index contacts_name_sort_idx on contacts (sub_id, lower(name))`.execute(db)
  await sql`create index packages_no_receiver_idx on packages (sub_id, package_id) where receiver_id is null`.execute(
    db,
  )
  // carrier.name search: the few matching carriers, then their packages (page and exact count).
  await sql`create index packages_carrier_idx on packages (sub_id, carrier_id, created_at desc)`.execute(db)

  // Exact totals. Counting reads every matching entry of an index; keys without a timestamp repeat,
  // so these deduplicate to a tenth of the size of the page indexes (a 100,000-match count reads
  // ~90 pages instead of ~900, a third of the time). The planner picks them for counts only.
  await sql`create index packages_status_count_idx on packages (sub_id, current_status)`.execute(db)
  await sql`create index packages_site_status_count_idx on packages (sub_id, site_id, current_status)`.execute(db)
  await sql`create index packages_receiver_count_idx on packages (sub_id, receiver_id)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of [
    'packages_receiver_count_idx',
    'packages_site_status_count_idx',
    'packages_status_count_idx',
    'packages_carrier_idx',
    'packages_no_receiver_idx',
    'contacts_name_sort_idx',
    'packages_undelivered_idx',
    'packages_delivery_idx',
    'packages_status_id_idx',
    'contacts_company_trgm_idx',
    'contacts_personal_id_trgm_idx',
    'contacts_email_trgm_idx',
    'packages_custom_values_trgm_idx',
    'packages_locker_bank_trgm_idx',
    'packages_comment_trgm_idx',
    'packages_id_suffix_idx',
    'packages_id_prefix_idx',
  ]) {
    await sql`drop index ${sql.id(name)}`.execute(db)
  }
  await sql`drop function package_custom_values(jsonb)`.execute(db)
}
