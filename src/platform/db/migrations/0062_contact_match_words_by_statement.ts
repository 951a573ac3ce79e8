import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
// The label matcher's indexes (0054) at a 50,000-contact roster (issue 27):
// - The name-word table was kept by a row-level trigger: a roster import of 50,000 contacts ran
//   50,000 inserts into it. Statement-level triggers with a transition table note the words of a
//   whole statement in one insert. PostgreSQL allows a transition table only on a trigger of one
//   event with no column list: one trigger for inserts, one for updates (an update that leaves
//   match_name alone notes words already there, which the conflict clause skips).
// - Both GIN indexes lead with sub_id (btree_gin: a contrib extension of PostgreSQL and of PGlite),
//   so a subscription's lookup reads its own entries, not every subscription's words like it.
// - Aliases were indexed as typed ("Betsy") and looked up in three spellings of the printed name:
//   "ZOË", "Zoe" and "zoë" missed "Zoë". They are indexed folded (lower case, accents off, as
//   match_name is) through an immutable function, and looked up in the printed name's folded form.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create extension if not exists btree_gin`.execute(db)
  await sql`drop trigger contacts_name_words on contacts`.execute(db)
  await sql`drop function contact_name_words_note()`.execute(db)
  await sql`
    create function contact_name_words_note() returns trigger language plpgsql as $$
    begin
      insert into contact_name_words (sub_id, word)
        select distinct n.sub_id, w from noted n, unnest(string_to_array(n.match_name, ' ')) as w where length(w) >= 2
        on conflict do nothing;
      return null;
    end $$`.execute(db)
  await sql`
    create trigger contacts_name_words_insert after insert on contacts
      referencing new table as noted for each statement execute function contact_name_words_note()`.execute(db)
  await sql`
    create trigger contacts_name_words_update after update on contacts
      referencing new table as noted for each statement execute function contact_name_words_note()`.execute(db)
  await sql`drop index contact_name_words_trgm_idx`.execute(db)
  await sql`create index contact_name_words_trgm_idx on contact_name_words using gin (sub_id, word gin_trgm_ops) with (fastupdate = off)`.execute(
    db,
  )
  await sql`drop index contacts_name_words_idx`.execute(db)
  await sql`create index contacts_name_words_idx on contacts using gin (sub_id, string_to_array(match_name, ' ')) with (fastupdate = off)`.execute(
    db,
  )
  await sql`drop index contacts_aliases_idx`.execute(db)
  await sql`
    create function contact_alias_words(aliases text[]) returns text[] language sql immutable parallel safe as $$
      select coalesce(array_agg(regexp_replace(lower(normalize(a, NFKD)), '[\u0300-\u036f]', '', 'g')), '{}')
      from unnest(aliases) as a
    $$`.execute(db)
  await sql`create index contacts_aliases_idx on contacts using gin (sub_id, contact_alias_words(aliases)) with (fastupdate = off)`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index contacts_aliases_idx`.execute(db)
  await sql`drop function contact_alias_words(text[])`.execute(db)
  await sql`create index contacts_aliases_idx on contacts using gin (aliases) with (fastupdate = off)`.execute(db)
  await sql`drop index contacts_name_words_idx`.execute(db)
  await sql`create index contacts_name_words_idx on contacts using gin (string_to_array(match_name, ' ')) with (fastupdate = off)`.execute(
    db,
  )
  await sql`drop index contact_name_words_trgm_idx`.execute(db)
  await sql`create index contact_name_words_trgm_idx on contact_name_words using gin (word gin_trgm_ops) with (fastupdate = off)`.execute(
    db,
  )
  await sql`drop trigger contacts_name_words_update on contacts`.execute(db)
  await sql`drop trigger contacts_name_words_insert on contacts`.execute(db)
  await sql`drop function contact_name_words_note()`.execute(db)
  await sql`
    create function contact_name_words_note() returns trigger language plpgsql as $$
    begin
      insert into contact_name_words (sub_id, word)
        select new.sub_id, w from unnest(string_to_array(new.match_name, ' ')) as w where length(w) >= 2
        on conflict do nothing;
      return null;
    end $$`.execute(db)
  await sql`
    create trigger contacts_name_words after insert or update of match_name on contacts
      for each row execute function contact_name_words_note()`.execute(db)
}
