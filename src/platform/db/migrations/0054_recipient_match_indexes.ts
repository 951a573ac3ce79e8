import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
// Label photos (issue 27): the directory is searched by the words of a printed name, which may be
// misread. Scanning every contact's whole name with trigrams costs as much as the names like it in
// the directory hold, hundreds at 50,000 contacts; so each subscription's distinct name words are
// kept in a small table (a few thousand words), searched with a pg_trgm GIN index for the words
// like the printed ones, and the contacts holding those words are found by an exact GIN index on
// the words of their normalised name. Both run the same on PGlite (pg_trgm contrib, plpgsql).
// The words table only grows (a trigger notes each new name's words): a word nobody has any more
// finds no contact. Group contacts (business mail) are few: a partial index finds them.
// The GIN indexes take each write into their tree at once (fastupdate off): PGlite has no
// autovacuum to merge a pending list, and a search reading one of thousands of unmerged entries
// took 70 ms instead of 2.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table contact_name_words (
    sub_id text not null references subscriptions (sub_id),
    word text not null,
    primary key (sub_id, word))`.execute(db)
  await sql`create index contact_name_words_trgm_idx on contact_name_words using gin (word gin_trgm_ops) with (fastupdate = off)`.execute(
    db,
  )
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
  await sql`
    insert into contact_name_words (sub_id, word)
      select distinct c.sub_id, w from contacts c, unnest(string_to_array(c.match_name, ' ')) as w
      where length(w) >= 2
      on conflict do nothing`.execute(db)
  await sql`create index contacts_name_words_idx on contacts using gin (string_to_array(match_name, ' ')) with (fastupdate = off)`.execute(
    db,
  )
  // Alternate first names (aliases), exactly as typed: the printed first name is looked up in them too.
  await sql`create index contacts_aliases_idx on contacts using gin (aliases) with (fastupdate = off)`.execute(db)
  await sql`create index contacts_group_idx on contacts (sub_id, location_site_id) where is_group and deleted_at is null`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index contacts_group_idx`.execute(db)
  await sql`drop index contacts_aliases_idx`.execute(db)
  await sql`drop index contacts_name_words_idx`.execute(db)
  await sql`drop trigger contacts_name_words on contacts`.execute(db)
  await sql`drop function contact_name_words_note()`.execute(db)
  await sql`drop table contact_name_words`.execute(db)
}
