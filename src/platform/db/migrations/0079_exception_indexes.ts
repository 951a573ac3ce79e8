import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// The exceptions list (issue 30.3, src/exceptions) reads each kind from its owner's table, oldest
// first, a page at a time, and counts it. These partial indexes hold only the rows of one kind, so
// reading or counting one costs the size of the exception list, not of the packages table (10M):
// - a damaged parcel still waiting (not handed over, returned, archived, or announced only);
// - a parcel still waiting whose carrier is unknown: received with no carrier, or as an internal
//   item (the console's answer to "not a known carrier format") under a number that is not one of
//   mailroom's own (MR…);
// - a failed notification, newest first (notifications' own store reads it).
// The status list is the packages domain's NOT_WAITING, written out: a migration imports no app
// code, and the queries repeat it literally so that PostgreSQL proves the index's predicate.
// Unclaimed parcels need none: packages_status_created_idx (sub_id, current_status, created_at)
// already reads the waiting statuses in arrival order.

const WAITING = `not archived and current_status not in ('DELIVERED', 'PICKED_UP', 'RETURNED_TO_SENDER', 'ARCHIVED', 'IN_TRANSIT')`

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `create index packages_damaged_waiting_idx on packages (sub_id, created_at, package_id) where damaged and ${WAITING}`,
    )
    .execute(db)
  await sql
    .raw(
      `create index packages_unknown_format_idx on packages (sub_id, created_at, package_id) where (carrier_id is null or (carrier_id = 'MAILROOM' and tracking_number not like 'MR%')) and ${WAITING}`,
    )
    .execute(db)
  await sql`create index notifications_failed_idx on notifications (sub_id, updated_at desc) where status = 'failed'`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index notifications_failed_idx`.execute(db)
  await sql`drop index packages_unknown_format_idx`.execute(db)
  await sql`drop index packages_damaged_waiting_idx`.execute(db)
}
