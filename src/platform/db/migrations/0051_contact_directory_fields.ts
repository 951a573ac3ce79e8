import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// What a directory knows of a person (issues 27 and 28): alternate first names, the unit or mail stop
// printed on labels, the id the identity provider or roster gives them, where the record came from,
// group contacts for business mail, and move-in / move-out dates.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table contacts
    add column aliases text[] not null default '{}',
    add column unit text,
    add column external_id text,
    add column source text not null default 'manual',
    add column is_group boolean not null default false,
    add column move_in date,
    add column move_out date`.execute(db)
  // One live contact per identity-provider id per subscription; a deleted contact's id no longer
  // blocks, so a person deleted by hand can be provisioned again.
  await sql`create unique index contacts_external_id_uq on contacts (sub_id, external_id)
    where external_id is not null and deleted_at is null`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index contacts_external_id_uq`.execute(db)
  await sql`alter table contacts
    drop column aliases, drop column unit, drop column external_id, drop column source,
    drop column is_group, drop column move_in, drop column move_out`.execute(db)
}
