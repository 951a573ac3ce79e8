import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// The proof a hand-over needs at a site (issue 25 item 4): `signature_rule` required / optional /
// off, and whether a photo of the collector or their ID may stand in for the signature. Null:
// as the nearest ancestor says (a building's rule covers its shelves); at the top, required and
// no photo.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('inbound_sites')
    .addColumn('signature_rule', 'text', (c) => c.check(sql`signature_rule in ('required', 'optional', 'off')`))
    .addColumn('photo_proof_allowed', 'boolean')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('inbound_sites').dropColumn('signature_rule').dropColumn('photo_proof_allowed').execute()
}
