import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
// Locations are deleted softly: inbound sites (themselves soft-deleted, kept for package history)
// keep their location_id, so a hard delete would break the foreign key, and a package's locationZip
// must still resolve. A deleted location's name becomes free again, as for custom fields.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('locations').addColumn('deleted_at', 'timestamptz').execute()
  await sql`drop index locations_sub_name_uq`.execute(db)
  await sql`create unique index locations_sub_name_uq on locations (sub_id, lower(name)) where deleted_at is null`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  // Fails if a deleted location shares its name with a live one; rename or purge it first.
  await sql`drop index locations_sub_name_uq`.execute(db)
  await sql`create unique index locations_sub_name_uq on locations (sub_id, lower(name))`.execute(db)
  await db.schema.alterTable('locations').dropColumn('deleted_at').execute()
}
