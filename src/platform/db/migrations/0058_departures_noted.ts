import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Contacts already gone when 0057 added `departure_noted_at` (inactive, or a move-out date
// passed) left before the directory flagged departures: their departure counts as noted now, or
// the first sweep after an upgrade would write a RecipientDeparted event for every old leaver
// with parcels waiting. The sweep (every minute, every subscription) reads the contacts whose
// departure is not noted: a partial index keeps that to the few that may be gone.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update contacts set departure_noted_at = now()
    where departure_noted_at is null and deleted_at is null
      and (status = 'inactive' or move_out <= (now() at time zone 'UTC')::date)`.execute(db)
  await sql`create index contacts_departure_unnoted_idx on contacts (updated_at)
    where departure_noted_at is null and deleted_at is null
      and (status = 'inactive' or move_out is not null)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index contacts_departure_unnoted_idx`.execute(db)
}
