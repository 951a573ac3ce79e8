import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// The send marker of a text (issue 29): the moment a worker handed it to the provider, committed
// before the request goes out. A text claimed again with the marker set was taken by a worker that
// stopped before recording the answer: it may have been sent, so it is settled 'unconfirmed' and
// never sent again. A retry (the provider refused or failed) clears it.
// And each number's latest reply, found fast: an SMPP reply without an SMSC id is known again by
// its content only while it is still that number's latest (a re-delivery, not a new STOP after a START).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table notifications add column send_started_at timestamptz`.execute(db)
  await sql`create index notification_sms_inbound_phone_idx on notification_sms_inbound (sub_id, phone, received_at)`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index notification_sms_inbound_phone_idx`.execute(db)
  await sql`update notifications set status = 'sent' where status = 'unconfirmed'`.execute(db)
  await sql`alter table notifications drop column send_started_at`.execute(db)
}
