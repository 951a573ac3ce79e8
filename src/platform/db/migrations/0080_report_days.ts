import { sql, type Kysely } from 'kysely'
import { defineTallyFunctions } from './0072_report_tallies.js'
import { defineDeletedTally } from './0074_report_deletes.js'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Reports, part 2 (issue 30.4): a month in a few thousand rows, and days of the site's own zone.
//
// 1. Coarser folded rows. `report_tallies` (migration 0072) kept one row per site x carrier x dwell
//    bucket x day, so a month read every combination (127,200 rows at 50 sites x 12 carriers).
//    `report_days` keeps one wide row (a, b, h) per day at each grain a report reads:
//    'all' (the day's total, with the dwell histogram h), 'site' (key: site, with h), 'carrier'
//    (key: carrier), 'site_carrier' (key: site, key2: carrier: a carrier view under a site filter),
//    'clerk' (key: clerk) and 'notifications'. a = received / sent, b = handed over / failed.
//    The triggers still append narrow deltas to `report_tally_deltas`; the fold (and a report, for
//    deltas not folded yet) widens them. The folded 0072 rows are carried over as they are.
// 2. Local days. A fact's day is its date in the time zone of the nearest location on its site's
//    chain (the site's own, else its nearest ancestor's), as the site and location are when the
//    row is written; UTC with no site, no location, or a zone PostgreSQL does not know. A location
//    that changes zone moves nothing already counted: later facts use the new zone; taking back a
//    hand-over counted under the old zone (an undo, an edit) takes it from its day in the new one.
//    Days counted before this migration stay UTC days.
// 3. Notifications sent and failed per UTC day (a notification is of a recipient, not a site), kept
//    by statement triggers on `notifications` as the package facts are: 'notified_sent' (sent or
//    unconfirmed) and 'notified_failed' deltas on the day it was made, moved as its status changes.
//
// 4. The daily summary email to admins: who opted in (per user), and one row per admin and day
//    sent, claimed before the send, so two workers send it once and a crash resends at most the one
//    that was in flight.
//
// The triggers read `inbound_sites` and `locations` (the zone) and write only the reports' tables,
// as the 0072 triggers read `packages`: the database keeps the tallies in the writer's transaction.

const DWELL_BOUNDS = [1, 2, 4, 8, 12, 24, 48, 72, 96, 120, 168, 240, 336, 504, 720]
const bucketOf = (r: string) =>
  `(select count(*) from unnest(array[${DWELL_BOUNDS.join(',')}]) b where b <= extract(epoch from (${r}.delivery_time - ${r}.created_at)) / 3600)::int`
/** The local date of a time at a row's site, from the statement's `zones`. */
const dayAt = (r: string, when: string) =>
  `(${when} at time zone (select z.tz from zones z where z.sub_id = ${r}.sub_id and z.site_id = coalesce(${r}.site_id, '')))::date`

const arrival = (r: string, n: number, when: string) => `
  select ${r}.sub_id, ${dayAt(r, when)} as day, 'received' as kind, coalesce(${r}.site_id, '') as site_id, coalesce(${r}.carrier_id, '') as carrier_id, -1 as bucket, ${n} as n
  union all
  select ${r}.sub_id, ${dayAt(r, when)}, 'received_by', coalesce(${r}.receive_clerk, ''), '', -1, ${n}`
const handOver = (r: string, n: number) => `
  select ${r}.sub_id, ${dayAt(r, `${r}.delivery_time`)} as day, 'handed_over' as kind, coalesce(${r}.site_id, '') as site_id, coalesce(${r}.carrier_id, '') as carrier_id, ${bucketOf(r)} as bucket, ${n} as n
  union all
  select ${r}.sub_id, ${dayAt(r, `${r}.delivery_time`)}, 'handed_over_by', coalesce(${r}.delivery_clerk, ''), '', -1, ${n}`

const ARRIVED = (r: string) => `${r}.current_status not in ('IN_TRANSIT', 'ARCHIVED')`
const HANDED = (r: string) => `${r}.current_status in ('DELIVERED', 'PICKED_UP') and ${r}.delivery_time is not null`

// The same facts as migrations 0072 and 0074, on local days.
const INSERTED = `
  select x.* from new_rows p cross join lateral (${arrival('p', 1, 'p.created_at')}) x where ${ARRIVED('p')}
  union all
  select x.* from new_rows p cross join lateral (${handOver('p', 1)}) x where ${HANDED('p')}`
const UPDATED = `
  select x.* from new_rows p join old_rows o on o.package_id = p.package_id
    cross join lateral (${arrival('p', 1, 'p.updated_at')}) x
   where o.receive_clerk is null and p.receive_clerk is not null
  union all
  select x.* from new_rows p join old_rows o on o.package_id = p.package_id
    cross join lateral (${handOver('p', 1)}) x
   where ${HANDED('p')} and o.current_status <> 'ARCHIVED'
  union all
  select x.* from new_rows p join old_rows o on o.package_id = p.package_id
    cross join lateral (${handOver('o', -1)}) x
   where ${HANDED('o')} and p.current_status <> 'ARCHIVED'`
const DELETED = `
  select x.* from old_rows o cross join lateral (${arrival('o', -1, 'o.created_at')}) x
   where o.current_status not in ('IN_TRANSIT', 'ARCHIVED') or (o.receive_clerk is not null and o.current_status <> 'ARCHIVED')
  union all
  select x.* from old_rows o cross join lateral (${handOver('o', -1)}) x where ${HANDED('o')}`

/** The zone of each site the statement touches, looked up once per site, not per row. */
const zones = (tables: string[]) => `
  with zones as materialized (
    select sub_id, site_id, report_zone(sub_id, site_id) as tz
      from (${tables.map((t) => `select distinct sub_id, coalesce(site_id, '') as site_id from ${t}`).join(' union ')}) s
  )`
const packageDeltas = (tables: string[], facts: string) => `
  insert into report_tally_deltas (sub_id, day, kind, site_id, carrier_id, bucket, n)
  ${zones(tables)}
  select sub_id, day, kind, site_id, carrier_id, bucket, sum(n) from (${facts}) f
   group by sub_id, day, kind, site_id, carrier_id, bucket
  having sum(n) <> 0`

const noted = (r: string, n: number) => `
  select ${r}.sub_id, (${r}.created_at at time zone 'UTC')::date as day,
         case when ${r}.status = 'failed' then 'notified_failed' else 'notified_sent' end as kind, ${n} as n
    from ${r === 'p' ? 'new_rows' : 'old_rows'} ${r} where ${r}.status in ('sent', 'unconfirmed', 'failed')`
const notificationDeltas = (parts: string[]) => `
  insert into report_tally_deltas (sub_id, day, kind, site_id, carrier_id, bucket, n)
  select sub_id, day, kind, '', '', -1, sum(n) from (${parts.join(' union all ')}) f
   group by sub_id, day, kind
  having sum(n) <> 0`

const FUNCTIONS: Record<string, string> = {
  report_tallies_inserted: packageDeltas(['new_rows'], INSERTED),
  report_tallies_updated: packageDeltas(['new_rows', 'old_rows'], UPDATED),
  report_tallies_deleted: packageDeltas(['old_rows'], DELETED),
  report_notifications_inserted: notificationDeltas([noted('p', 1)]),
  report_notifications_updated: notificationDeltas([noted('p', 1), noted('o', -1)]),
  report_notifications_deleted: notificationDeltas([noted('o', -1)]),
}

/** Narrow rows widened to the grains (src/reports/store/days.ts does the same for fold and read). */
const WIDE = (src: string) => `
  select s.sub_id, g.grain, s.day, g.key, g.key2,
         coalesce(sum(s.n) filter (where s.kind in ('received', 'received_by', 'notified_sent')), 0) as a,
         coalesce(sum(s.n) filter (where s.kind in ('handed_over', 'handed_over_by', 'notified_failed')), 0) as b,
         case when g.grain in ('all', 'site') then array[${Array.from(
           { length: DWELL_BOUNDS.length + 1 },
           (_, i) => `coalesce(sum(s.n) filter (where s.kind = 'handed_over' and s.bucket = ${i}), 0)`,
         ).join(', ')}]::bigint[] end as h
    from (${src}) s cross join lateral (
      select 'all' as grain, '' as key, '' as key2 where s.kind in ('received', 'handed_over')
      union all select 'site', s.site_id, '' where s.kind in ('received', 'handed_over')
      union all select 'carrier', s.carrier_id, '' where s.kind in ('received', 'handed_over')
      union all select 'site_carrier', s.site_id, s.carrier_id where s.kind in ('received', 'handed_over')
      union all select 'clerk', s.site_id, '' where s.kind in ('received_by', 'handed_over_by')
      union all select 'notifications', '', '' where s.kind in ('notified_sent', 'notified_failed')
    ) g
   group by s.sub_id, g.grain, s.day, g.key, g.key2`

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table report_days (
      sub_id text not null, grain text not null, day date not null, key text not null, key2 text not null,
      a bigint not null, b bigint not null, h bigint[],
      constraint report_days_pk primary key (sub_id, grain, day, key, key2) include (a, b, h)
    )`.execute(db)
  // A site's zone: the nearest location up its chain, the site's own first. A zone the database does
  // not know (the API checks zones against the server's, not PostgreSQL's) counts in UTC rather
  // than failing the package write.
  await sql`
    create function report_zone(p_sub text, p_site text) returns text language plpgsql stable as $$
    declare tz text;
    begin
      select l.timezone into tz
        from inbound_sites s
        cross join lateral unnest(s.ancestor_ids || s.site_id) with ordinality a(id, i)
        join inbound_sites x on x.site_id = a.id and x.sub_id = s.sub_id
        join locations l on l.location_id = x.location_id and l.sub_id = s.sub_id
       where s.sub_id = p_sub and s.site_id = p_site
       order by a.i desc limit 1;
      if tz is null then return 'UTC'; end if;
      perform now() at time zone tz;
      return tz;
    exception when others then
      return 'UTC';
    end $$`.execute(db)
  for (const [name, body] of Object.entries(FUNCTIONS)) {
    await sql`create or replace function ${sql.raw(name)}() returns trigger language plpgsql as $$
      begin
        ${sql.raw(body)};
        return null;
      end $$`.execute(db)
  }
  await sql`create trigger notifications_report_insert after insert on notifications referencing new table as new_rows for each statement execute function report_notifications_inserted()`.execute(
    db,
  )
  await sql`create trigger notifications_report_update after update on notifications referencing new table as new_rows old table as old_rows for each statement execute function report_notifications_updated()`.execute(
    db,
  )
  await sql`create trigger notifications_report_delete after delete on notifications referencing old table as old_rows for each statement execute function report_notifications_deleted()`.execute(
    db,
  )
  // The notifications already made, counted as the triggers would have.
  await sql`
    insert into report_tally_deltas (sub_id, day, kind, site_id, carrier_id, bucket, n)
    select sub_id, (created_at at time zone 'UTC')::date,
           case when status = 'failed' then 'notified_failed' else 'notified_sent' end, '', '', -1, count(*)
      from notifications where status in ('sent', 'unconfirmed', 'failed')
     group by 1, 2, 3`.execute(db)
  await sql`
    create table report_summary_optins (
      sub_id text not null, user_id text not null, created_at timestamptz not null,
      primary key (sub_id, user_id)
    )`.execute(db)
  await sql`
    create table report_summary_sends (
      sub_id text not null, user_id text not null, day date not null,
      status text not null check (status in ('sending', 'sent', 'unconfirmed', 'failed')),
      attempts integer not null, claimed_until timestamptz not null, sent_at timestamptz, last_error text,
      primary key (sub_id, user_id, day)
    )`.execute(db)
  await sql`create index report_summary_sends_day_idx on report_summary_sends (day)`.execute(db)
  // The folded 0072 rows, widened once here (not left to the fold: millions of rows at scale).
  await sql`
    insert into report_days (sub_id, grain, day, key, key2, a, b, h)
    ${sql.raw(WIDE('select sub_id, day, kind, site_id, carrier_id, bucket, n from report_tallies'))}`.execute(db)
  await sql`drop table report_tallies`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['insert', 'update', 'delete'])
    await sql`drop trigger ${sql.raw(`notifications_report_${t}`)} on notifications`.execute(db)
  for (const f of ['inserted', 'updated', 'deleted'])
    await sql`drop function ${sql.raw(`report_notifications_${f}`)}()`.execute(db)
  await sql`delete from report_tally_deltas where kind like 'notified%'`.execute(db)
  // The package triggers as 0072 and 0074 made them (UTC days), then without the zone they asked
  // for; 0072's table comes back empty of what was folded.
  await defineTallyFunctions(db)
  await defineDeletedTally(db)
  await sql`drop function report_zone(text, text)`.execute(db)
  await sql`
    create table report_tallies (
      sub_id text not null, day date not null, kind text not null, site_id text not null, carrier_id text not null,
      bucket integer not null, n bigint not null,
      constraint report_tallies_pk primary key (sub_id, day, kind, site_id, carrier_id, bucket) include (n)
    )`.execute(db)
  await sql`drop table report_days`.execute(db)
  await sql`drop table report_summary_sends`.execute(db)
  await sql`drop table report_summary_optins`.execute(db)
}
