import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
// Label photos (issue 27): the directory is searched by the words of a printed surname, which may
// be misread. A trigram index on the normalised name serves pg_trgm's word-similarity operator
// (`match_name %> token`); the same SQL runs on PGlite through its pg_trgm contrib extension.
// Group contacts (business mail) are few: a partial index finds a site's or a subscription's.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index contacts_match_name_trgm_idx on contacts using gin (match_name gin_trgm_ops)`.execute(db)
  await sql`create index contacts_group_idx on contacts (sub_id, location_site_id) where is_group and deleted_at is null`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index contacts_group_idx`.execute(db)
  await sql`drop index contacts_match_name_trgm_idx`.execute(db)
}
