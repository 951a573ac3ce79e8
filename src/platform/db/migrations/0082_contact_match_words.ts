import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
// The label matcher's candidates in one GIN scan (issue 27). A printed "PATRICIA NGUYEN" asks for
// contacts holding a word like "nguyen" AND (a word like "patricia" OR the alias "patricia").
// The name words and the aliases were two indexes, and the planner did not combine them (the
// name's bitmap ANDed with an OR over both): it read every contact of the surname (730 rows at
// 50,000 contacts) and folded each one's aliases in the filter, 6–8 ms on PGlite. One array per contact holds
// both, its name's words and each folded alias marked with a leading "=" (a folded word never
// holds one): both conditions are then overlaps with the same indexed array, which GIN
// intersects inside the index (15 rows read instead of 730).
// Most contacts have no alias: for them the aliases are not folded at all (array_to_string is only
// stable, so PostgreSQL runs this function rather than inlining it; a second function call per row
// made a roster import 20% slower than the two indexes it replaces, and the case makes it faster).
// The function is written with the schema it is created in: an index expression's function runs
// with search_path pg_catalog during maintenance (PostgreSQL 17), where an unqualified
// contact_alias_words is not found.
export async function up(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
  const aliasWords = sql.id(rows[0]!.schema, 'contact_alias_words')
  await sql`
    create function contact_match_words(match_name text, aliases text[]) returns text[]
      language sql immutable parallel safe as $$
      select case when cardinality(aliases) = 0 then string_to_array(match_name, ' ')
        else string_to_array(match_name, ' ')
          || array_remove(string_to_array('=' || array_to_string(${aliasWords}(aliases), '|='), '|'), '=') end
    $$`.execute(db)
  await sql`create index contacts_match_words_idx on contacts using gin (sub_id, contact_match_words(match_name, aliases)) with (fastupdate = off)`.execute(
    db,
  )
  await sql`drop index contacts_name_words_idx`.execute(db)
  await sql`drop index contacts_aliases_idx`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index contacts_aliases_idx on contacts using gin (sub_id, contact_alias_words(aliases)) with (fastupdate = off)`.execute(
    db,
  )
  await sql`create index contacts_name_words_idx on contacts using gin (sub_id, string_to_array(match_name, ' ')) with (fastupdate = off)`.execute(
    db,
  )
  await sql`drop index contacts_match_words_idx`.execute(db)
  await sql`drop function contact_match_words(text, text[])`.execute(db)
}
