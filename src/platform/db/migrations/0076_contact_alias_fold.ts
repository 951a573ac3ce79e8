import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
// Aliases folded as names are (issue 27). 0062 folded an alias with lower case and accents off
// only: "Søren" stayed "søren" and "Mary-Ann" stayed "mary-ann", so a label reading "SOREN" or
// "MARY ANN" never found them. `contact_alias_words` now folds each alias whole as
// contacts/model/normalize.ts's normalizeForMatch does: NFKD, combining marks off, lower case,
// the letters NFKD leaves whole folded as carriers print them, anything not a letter or digit a
// word break ("Mary-Ann" is "mary ann"). The letters are listed here and in normalize.ts;
// test/contacts/match-fold.test.ts fails when the two fold any letter differently.
// The aliases' GIN index is built from the function, so it is dropped and built again over the
// rows as they are (aliases are stored as typed: nothing else is rewritten).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index contacts_aliases_idx`.execute(db)
  // One function, not a helper it calls: an index expression runs with search_path pg_catalog
  // only (PostgreSQL 17, PGlite), where an unqualified helper is not found.
  await sql`
    create or replace function contact_alias_words(aliases text[]) returns text[] language sql immutable parallel safe as $$
      select coalesce(array_agg(f), '{}') from unnest(aliases) as a, btrim(regexp_replace(
        replace(replace(replace(replace(translate(
          lower(regexp_replace(normalize(a, NFKD), '[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+', '', 'g')),
          'øđðłıħ', 'oddlih'), 'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'þ', 'th'),
        '[^[:alnum:]]+', ' ', 'g'), ' ') as f
      where f <> ''
    $$`.execute(db)
  await sql`create index contacts_aliases_idx on contacts using gin (sub_id, contact_alias_words(aliases)) with (fastupdate = off)`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index contacts_aliases_idx`.execute(db)
  await sql`
    create or replace function contact_alias_words(aliases text[]) returns text[] language sql immutable parallel safe as $$
      select coalesce(array_agg(regexp_replace(lower(normalize(a, NFKD)), '[\u0300-\u036f]', '', 'g')), '{}')
      from unnest(aliases) as a
    $$`.execute(db)
  await sql`create index contacts_aliases_idx on contacts using gin (sub_id, contact_alias_words(aliases)) with (fastupdate = off)`.execute(
    db,
  )
}
