import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Exact search totals that do not grow with the table. Counting the packages a search matches
// reads one index entry per match, so a total of 100,000 costs ten times one of 10,000. The
// tallies keep, per subscription, how many packages there are per status along each dimension a
// count can be asked by without a search term (the site) or with a name search (the receiver,
// sender and givenTo contact): a total is then a sum over a few hundred tally rows, whatever the
// number of packages.
//
// Kept by the database itself: statement triggers on `packages` (one set-based insert per
// statement, through its transition tables) append signed deltas in the same transaction as the
// change, so every writer (the service, the seed, the webhook jobs, a hand-run UPDATE) keeps them
// exact, and a count sees the tallies of exactly the packages its snapshot sees. Deltas go to an
// append-only table, never to a shared counter row, so concurrent writers never wait on each
// other; a housekeeping job folds them into `package_tallies` now and then (search/tallies.ts).
// A total is `package_tallies` + the deltas not folded yet.
//
// Dimensions: 'site' (the package's site id, '' when it has none: with no site filter every
// package counts), 'receiver', 'sender', 'given_to' (the contact id, rows only for packages that
// have one).

const dimensions = (row: string) =>
  `(values ('site', coalesce(${row}.site_id, '')), ('receiver', ${row}.receiver_id), ('sender', ${row}.sender_id), ('given_to', ${row}.given_to_id))`

/** The deltas of a statement: +1 per new row, -1 per old row, summed per tally, zeros dropped. */
const deltas = (parts: string) => `
  insert into package_tally_deltas (sub_id, dim, key, status, n)
  select x.sub_id, d.dim, d.key, x.current_status, sum(x.n)
    from (${parts}) x
    cross join lateral ${dimensions('x')} as d(dim, key)
   where d.key is not null
   group by x.sub_id, d.dim, d.key, x.current_status
  having sum(x.n) <> 0`

const COLUMNS = 'sub_id, current_status, site_id, receiver_id, sender_id, given_to_id'
const FROM_NEW = `select ${COLUMNS}, 1 as n from new_rows`
const FROM_OLD = `select ${COLUMNS}, -1 as n from old_rows`

const FUNCTIONS = {
  package_tallies_inserted: FROM_NEW,
  package_tallies_updated: `${FROM_NEW} union all ${FROM_OLD}`,
  package_tallies_deleted: FROM_OLD,
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table package_tallies (
      sub_id text not null, dim text not null, key text not null, status text not null, n bigint not null,
      constraint package_tallies_pk primary key (sub_id, dim, key, status) include (n)
    )`.execute(db)
  await sql`create table package_tally_deltas (sub_id text not null, dim text not null, key text not null, status text not null, n integer not null)`.execute(
    db,
  )
  await sql`create index package_tally_deltas_key_idx on package_tally_deltas (sub_id, dim, key, status) include (n)`.execute(
    db,
  )

  for (const [name, parts] of Object.entries(FUNCTIONS)) {
    await sql`create function ${sql.raw(name)}() returns trigger language plpgsql as $$
      begin
        ${sql.raw(deltas(parts))};
        return null;
      end $$`.execute(db)
  }
  await sql`create trigger packages_tally_insert after insert on packages referencing new table as new_rows for each statement execute function package_tallies_inserted()`.execute(
    db,
  )
  await sql`create trigger packages_tally_update after update on packages referencing new table as new_rows old table as old_rows for each statement execute function package_tallies_updated()`.execute(
    db,
  )
  await sql`create trigger packages_tally_delete after delete on packages referencing old table as old_rows for each statement execute function package_tallies_deleted()`.execute(
    db,
  )

  // The packages already there.
  await sql`
    insert into package_tallies (sub_id, dim, key, status, n)
    select p.sub_id, d.dim, d.key, p.current_status, count(*)
      from packages p cross join lateral ${sql.raw(dimensions('p'))} as d(dim, key)
     where d.key is not null
     group by p.sub_id, d.dim, d.key, p.current_status`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const trigger of ['packages_tally_insert', 'packages_tally_update', 'packages_tally_delete'])
    await sql`drop trigger ${sql.raw(trigger)} on packages`.execute(db)
  for (const name of Object.keys(FUNCTIONS)) await sql`drop function ${sql.raw(name)}()`.execute(db)
  await sql`drop table package_tally_deltas`.execute(db)
  await sql`drop table package_tallies`.execute(db)
}
