import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Reminders follow the arrival email they remind of (issue 25.7): one reminder (of each step) per
// arrival email, counted from when it was sent, instead of one per parcel counted from its arrival.
// `reminds_id` is the arrival notification a REMINDER or FINAL_NOTICE is about; the unique index
// keeps one of each step per arrival email, whichever process writes it. Older reminders: null.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table notifications add column reminds_id text`.execute(db)
  await sql`create unique index notifications_reminds_uq on notifications (reminds_id, kind, step) where reminds_id is not null`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index notifications_reminds_uq`.execute(db)
  await sql`alter table notifications drop column reminds_id`.execute(db)
}
