import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// The report tallies (migration 0072) counted inserts and updates of `packages` only: a deleted
// package stayed counted. A statement trigger on delete now takes back what its row counts, as the
// update trigger takes back an old row:
// - its hand-over (DELIVERED or PICKED_UP with a deliveryTime), exactly as counted, since the
//   update trigger moves a hand-over with every edit. Archiving leaves a hand-over counted but
//   clears the row's deliveryTime and clerk: the hand-over of a parcel archived before it is
//   deleted has no day left to be taken back from, and stays counted (it did happen);
// - its arrival, when it was counted (it arrived: its receiving clerk is set, or its status is one
//   that arrived), on its creation day at its site, carrier and clerk as they are now. An arrival
//   counted on a later day (announced, then arrived) is taken back from its creation day, and one
//   counted before the parcel was moved (a shelf filing) from where the row stands: the tallies keep
//   no per-package key, so such a delete moves one arrival between days or sites (a cell may show
//   -1) while the span's total stays right;
// - nothing of an archived parcel: archiving cleared its hand-over day, so the whole parcel stays
//   counted (received and handed over), rather than its arrival alone being taken back.
//
// And an index for the reports' sent and failed notifications per day (notifications' own store
// reads it): (sub_id, created_at) with the status included, so a span is an index-only range. Built
// before the trigger: migrations run in one transaction, and `packages` (locked by the trigger's
// creation until the commit) must not wait for the build; notifications wait (docs/scale.md).

const bucketOf = (row: string) =>
  `(select count(*) from unnest(array[1,2,4,8,12,24,48,72,96,120,168,240,336,504,720]) b where b <= extract(epoch from (${row}.delivery_time - ${row}.created_at)) / 3600)::int`

const DELETED = `
  select o.sub_id, (o.created_at at time zone 'UTC')::date as day, 'received' as kind, coalesce(o.site_id, '') as site_id, coalesce(o.carrier_id, '') as carrier_id, -1 as bucket, -1 as n
    from old_rows o where o.current_status not in ('IN_TRANSIT', 'ARCHIVED') or (o.receive_clerk is not null and o.current_status <> 'ARCHIVED')
  union all
  select o.sub_id, (o.created_at at time zone 'UTC')::date, 'received_by', coalesce(o.receive_clerk, ''), '', -1, -1
    from old_rows o where o.current_status not in ('IN_TRANSIT', 'ARCHIVED') or (o.receive_clerk is not null and o.current_status <> 'ARCHIVED')
  union all
  select o.sub_id, (o.delivery_time at time zone 'UTC')::date, 'handed_over', coalesce(o.site_id, ''), coalesce(o.carrier_id, ''), ${bucketOf('o')}, -1
    from old_rows o where o.current_status in ('DELIVERED', 'PICKED_UP') and o.delivery_time is not null
  union all
  select o.sub_id, (o.delivery_time at time zone 'UTC')::date, 'handed_over_by', coalesce(o.delivery_clerk, ''), '', -1, -1
    from old_rows o where o.current_status in ('DELIVERED', 'PICKED_UP') and o.delivery_time is not null`

/** The delete trigger's function as this migration defines it (0080's down puts it back). */
export async function defineDeletedTally(db: Kysely<any>): Promise<void> {
  await sql`create or replace function report_tallies_deleted() returns trigger language plpgsql as $$
    begin
      insert into report_tally_deltas (sub_id, day, kind, site_id, carrier_id, bucket, n)
      select sub_id, day, kind, site_id, carrier_id, bucket, sum(n) from (${sql.raw(DELETED)}) f
       group by sub_id, day, kind, site_id, carrier_id, bucket
      having sum(n) <> 0;
      return null;
    end $$`.execute(db)
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index notifications_day_status_idx on notifications (sub_id, created_at) include (status)`.execute(
    db,
  )
  await defineDeletedTally(db)
  await sql`create trigger packages_report_delete after delete on packages referencing old table as old_rows for each statement execute function report_tallies_deleted()`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index notifications_day_status_idx`.execute(db)
  await sql`drop trigger packages_report_delete on packages`.execute(db)
  await sql`drop function report_tallies_deleted()`.execute(db)
}
