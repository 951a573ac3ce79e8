import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// The fan-out takes a fair share of each subscription's undispatched events per pass (issue 26):
// this index walks the subscriptions that have some, and each one's oldest, without reading
// another subscription's backlog.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index package_events_pending_sub_idx on package_events (sub_id, occurred_at, sequence) where dispatched_at is null`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index package_events_pending_sub_idx`.execute(db)
}
