import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Text messages (issue 29). A text is a notification row like an email (channel 'sms'), claimed,
// leased and retried by the same worker. A recipient who wants both gets a second row, the email's
// child (parent_id, at most one per notification): it shares its parent's packages, so the open
// arrival batch (one per recipient) is the parent's only. Delivery receipts land on the row.
// The facility's provider and channel choices, each recipient's channels and consent, the numbers
// that said STOP and the inbound replies seen (a provider's retry is answered once) have tables here.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table notifications add column parent_id text`.execute(db)
  await sql`alter table notifications add column provider_message_id text`.execute(db)
  await sql`alter table notifications add column delivery_status text`.execute(db)
  await sql`alter table notifications add column delivered_at timestamptz`.execute(db)
  await sql`create unique index notifications_parent_uq on notifications (parent_id) where parent_id is not null`.execute(
    db,
  )
  await sql`create index notifications_provider_msg_idx on notifications (sub_id, provider_message_id)
    where provider_message_id is not null`.execute(db)
  await sql`drop index notifications_open_arrival_uq`.execute(db)
  await sql`create unique index notifications_open_arrival_uq on notifications (sub_id, contact_id)
    where kind = 'ARRIVAL' and status = 'pending' and attempts = 0 and parent_id is null`.execute(db)

  await sql`create table notification_sms_settings (
    sub_id text primary key,
    provider text not null,
    url text,
    account text,
    secret_sealed text,
    from_number text,
    sender_name text,
    channels jsonb not null,
    quiet_start text,
    quiet_end text,
    updated_at timestamptz not null)`.execute(db)
  await sql`create table notification_recipient_channels (
    sub_id text not null,
    contact_id text not null,
    kinds jsonb not null,
    sms_opt_in_at timestamptz,
    sms_opt_in_source text,
    updated_at timestamptz not null,
    primary key (sub_id, contact_id))`.execute(db)
  await sql`create table notification_sms_stops (
    sub_id text not null,
    phone text not null,
    stopped boolean not null,
    keyword text not null,
    changed_at timestamptz not null,
    primary key (sub_id, phone))`.execute(db)
  await sql`create table notification_sms_inbound (
    sub_id text not null,
    message_id text not null,
    phone text not null,
    body text not null,
    received_at timestamptz not null,
    primary key (sub_id, message_id))`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table notification_sms_inbound`.execute(db)
  await sql`drop table notification_sms_stops`.execute(db)
  await sql`drop table notification_recipient_channels`.execute(db)
  await sql`drop table notification_sms_settings`.execute(db)
  await sql`delete from notifications where parent_id is not null`.execute(db)
  await sql`update notifications set channel = 'email' where channel <> 'email'`.execute(db)
  await sql`drop index notifications_open_arrival_uq`.execute(db)
  await sql`create unique index notifications_open_arrival_uq on notifications (sub_id, contact_id)
    where kind = 'ARRIVAL' and status = 'pending' and attempts = 0`.execute(db)
  await sql`drop index notifications_provider_msg_idx`.execute(db)
  await sql`drop index notifications_parent_uq`.execute(db)
  for (const c of ['delivered_at', 'delivery_status', 'provider_message_id', 'parent_id'])
    await sql`alter table notifications drop column ${sql.ref(c)}`.execute(db)
}
