import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// The month a manager reads (issue 30.4) without counting packages: per subscription and UTC day,
// how many parcels arrived and were handed over, per site and carrier, how long each handed-over
// one waited (a histogram of hours), and per clerk how many each received and handed over. Kept
// as the search tallies are (migration 0010): statement triggers on `packages` append signed deltas
// in the changing transaction, to an append-only table no writer waits on; a job folds them into
// `report_tallies`; a report sums the tallies and the deltas not folded yet over its days, a few
// thousand rows a month whatever the number of packages.
//
// kind: 'received' (site, carrier), 'handed_over' (site, carrier, bucket: the dwell's hour bucket),
// 'received_by' / 'handed_over_by' (key: the clerk). `bucket` is the index of the first bound of
// DWELL_BOUNDS above the dwell in hours (-1 when not a dwell row).
//
// Arrival: an insert in any status but IN_TRANSIT and ARCHIVED, on the day it was created; an
// update that first sets its receiving clerk, on the day of the update. Hand-over: DELIVERED or
// PICKED_UP, on the day of its deliveryTime, dwelling from its creation; an update takes back what
// was counted and counts what is now (undone: -1 as it was counted), except into or out of ARCHIVED.

const DWELL_BOUNDS = [1, 2, 4, 8, 12, 24, 48, 72, 96, 120, 168, 240, 336, 504, 720]
const bucketOf = (row: string) =>
  `(select count(*) from unnest(array[${DWELL_BOUNDS.join(',')}]) b where b <= extract(epoch from (${row}.delivery_time - ${row}.created_at)) / 3600)::int`

const ARRIVED = (row: string) => `${row}.current_status not in ('IN_TRANSIT', 'ARCHIVED')`
const HANDED = (row: string) =>
  `${row}.current_status in ('DELIVERED', 'PICKED_UP') and ${row}.delivery_time is not null`

/** The rows a statement adds (n = 1) or takes back (n = -1). */
const facts = (row: string, n: number, when: string) => `
  select ${row}.sub_id, (${when} at time zone 'UTC')::date as day, 'received' as kind, coalesce(${row}.site_id, '') as site_id, coalesce(${row}.carrier_id, '') as carrier_id, -1 as bucket, ${n} as n
  union all
  select ${row}.sub_id, (${when} at time zone 'UTC')::date, 'received_by', coalesce(${row}.receive_clerk, ''), '', -1, ${n}`

const INSERTED = `
  select x.* from new_rows p cross join lateral (${facts('p', 1, 'p.created_at')}) x where ${ARRIVED('p')}
  union all
  select x.* from new_rows p cross join lateral (${handedFacts('p', 1)}) x where ${HANDED('p')}`

function handedFacts(row: string, n: number): string {
  return `
  select ${row}.sub_id, (${row}.delivery_time at time zone 'UTC')::date as day, 'handed_over' as kind, coalesce(${row}.site_id, '') as site_id, coalesce(${row}.carrier_id, '') as carrier_id, ${bucketOf(row)} as bucket, ${n} as n
  union all
  select ${row}.sub_id, (${row}.delivery_time at time zone 'UTC')::date, 'handed_over_by', coalesce(${row}.delivery_clerk, ''), '', -1, ${n}`
}

// Old and new rows are paired by package id (a statement updates each row once). An arrival counts
// once: when the receiving clerk is first set (rules.ts sets it when the package first reaches a
// site and keeps it after), so RECEIVED -> IN_TRANSIT -> RECEIVED is one arrival. A hand-over is
// taken back as it was counted and counted again as it is now, so an edit after it (carrier, site)
// moves it and a no-op update cancels in `having sum(n) <> 0`. Archiving and unarchiving leave the
// hand-over as it was: an archived parcel was still handed over.
const UPDATED = `
  select x.* from new_rows p join old_rows o on o.package_id = p.package_id
    cross join lateral (${facts('p', 1, 'p.updated_at')}) x
   where o.receive_clerk is null and p.receive_clerk is not null
  union all
  select x.* from new_rows p join old_rows o on o.package_id = p.package_id
    cross join lateral (${handedFacts('p', 1)}) x
   where ${HANDED('p')} and o.current_status <> 'ARCHIVED'
  union all
  select x.* from new_rows p join old_rows o on o.package_id = p.package_id
    cross join lateral (${handedFacts('o', -1)}) x
   where ${HANDED('o')} and p.current_status <> 'ARCHIVED'`

const deltas = (parts: string) => `
  insert into report_tally_deltas (sub_id, day, kind, site_id, carrier_id, bucket, n)
  select sub_id, day, kind, site_id, carrier_id, bucket, sum(n) from (${parts}) f
   group by sub_id, day, kind, site_id, carrier_id, bucket
  having sum(n) <> 0`

const FUNCTIONS = { report_tallies_inserted: INSERTED, report_tallies_updated: UPDATED }

/** The insert and update triggers' functions as this migration defines them (0080's down puts them back). */
export async function defineTallyFunctions(db: Kysely<any>): Promise<void> {
  for (const [name, parts] of Object.entries(FUNCTIONS)) {
    await sql`create or replace function ${sql.raw(name)}() returns trigger language plpgsql as $$
      begin
        ${sql.raw(deltas(parts))};
        return null;
      end $$`.execute(db)
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table report_tallies (
      sub_id text not null, day date not null, kind text not null, site_id text not null, carrier_id text not null,
      bucket integer not null, n bigint not null,
      constraint report_tallies_pk primary key (sub_id, day, kind, site_id, carrier_id, bucket) include (n)
    )`.execute(db)
  await sql`
    create table report_tally_deltas (
      sub_id text not null, day date not null, kind text not null, site_id text not null, carrier_id text not null,
      bucket integer not null, n integer not null
    )`.execute(db)
  await sql`create index report_tally_deltas_day_idx on report_tally_deltas (sub_id, day) include (kind, site_id, carrier_id, bucket, n)`.execute(
    db,
  )
  await defineTallyFunctions(db)
  await sql`create trigger packages_report_insert after insert on packages referencing new table as new_rows for each statement execute function report_tallies_inserted()`.execute(
    db,
  )
  await sql`create trigger packages_report_update after update on packages referencing new table as new_rows old table as old_rows for each statement execute function report_tallies_updated()`.execute(
    db,
  )
  // The packages already there, as if each had been inserted as it is now.
  await sql`
    insert into report_tallies (sub_id, day, kind, site_id, carrier_id, bucket, n)
    select sub_id, day, kind, site_id, carrier_id, bucket, sum(n) from (
      select x.* from packages p cross join lateral (${sql.raw(facts('p', 1, 'p.created_at'))}) x where ${sql.raw(ARRIVED('p'))}
      union all
      select x.* from packages p cross join lateral (${sql.raw(handedFacts('p', 1))}) x where ${sql.raw(HANDED('p'))}
    ) f group by sub_id, day, kind, site_id, carrier_id, bucket`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger packages_report_insert on packages`.execute(db)
  await sql`drop trigger packages_report_update on packages`.execute(db)
  for (const name of Object.keys(FUNCTIONS)) await sql`drop function ${sql.raw(name)}()`.execute(db)
  await sql`drop table report_tally_deltas`.execute(db)
  await sql`drop table report_tallies`.execute(db)
}
