import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Holds, forwards and returns (issue 30.2). A recipient's hold (vacation, leave) pauses the
// reminders of their waiting parcels from `starts_at` until `ends_at`. A site's return deadline in
// days (null: its nearest ancestor's) lets the proposal job propose waiting parcels for return to
// sender; each parcel is proposed once (the unique index), then confirmed, dismissed or extended by
// a clerk. Forwards need no table: they are package activities.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table recipient_holds (
      hold_id text primary key,
      sub_id text not null,
      contact_id text not null,
      starts_at timestamptz not null,
      ends_at timestamptz not null,
      reason text not null,
      created_by text not null,
      created_at timestamptz not null,
      constraint recipient_holds_span_check check (ends_at > starts_at)
    )`.execute(db)
  await sql`create index recipient_holds_contact_idx on recipient_holds (sub_id, contact_id, ends_at)`.execute(db)
  await sql`
    create table site_return_deadlines (
      sub_id text not null,
      site_id text not null,
      days integer not null,
      updated_at timestamptz not null,
      constraint site_return_deadlines_pk primary key (sub_id, site_id),
      constraint site_return_deadlines_days_check check (days between 1 and 365)
    )`.execute(db)
  await sql`
    create table return_proposals (
      proposal_id text primary key,
      sub_id text not null,
      package_id text not null,
      site_id text not null,
      deadline_days integer not null,
      received_at timestamptz not null,
      proposed_at timestamptz not null,
      status text not null,
      shown_from timestamptz not null,
      decided_by text,
      decided_at timestamptz,
      constraint return_proposals_status_check check (status in ('open', 'returned', 'dismissed'))
    )`.execute(db)
  // Proposed once per parcel, whichever worker got there first.
  await sql`create unique index return_proposals_package_uq on return_proposals (sub_id, package_id)`.execute(db)
  await sql`create index return_proposals_open_idx on return_proposals (sub_id, shown_from) where status = 'open'`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table return_proposals`.execute(db)
  await sql`drop table site_return_deadlines`.execute(db)
  await sql`drop table recipient_holds`.execute(db)
}
