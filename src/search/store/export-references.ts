import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

/**
 * What the records of an export refer to, read once per export rather than per package: every
 * site of the subscription (deleted ones too: packages keep their history), carriers, custom-field
 * definitions, and the locations' postal codes. Contacts are read per batch (exportContacts).
 * The same data as the per-page read model (packages/store/read.ts), set-based for millions of rows.
 */
export async function exportReferences(db: Executor, subId: string) {
  const [sites, carriers, fields, zips] = await Promise.all([
    db
      .selectFrom('inbound_sites')
      .select([
        'site_id',
        'sub_id',
        'name',
        'type',
        'parent_id',
        'location_id',
        'ancestor_ids',
        'path_names',
        'status',
        'is_primary',
        'created_at',
        'updated_at',
        'deleted_at',
      ])
      .where('sub_id', '=', subId)
      .execute(),
    db
      .selectFrom('carriers')
      .select(['carrier_id', 'name'])
      .where((eb) => eb.or([eb('sub_id', 'is', null), eb('sub_id', '=', subId)]))
      .execute(),
    db.selectFrom('custom_fields').select(['custom_field_id', 'name', 'status']).where('sub_id', '=', subId).execute(),
    db
      .selectFrom('locations')
      .select(['location_id', sql<string | null>`address->>'postalCode'`.as('zip')])
      .where('sub_id', '=', subId)
      .execute(),
  ])
  return { sites, carriers, fields, zips }
}

export async function exportContacts(db: Executor, subId: string, ids: string[]) {
  if (ids.length === 0) return []
  return db
    .selectFrom('contacts')
    .select([
      'contact_id',
      'contact_type',
      'name',
      'company',
      'email',
      'phone',
      'personal_id',
      'location_site_id',
      'mail_stop_site_id',
      'status',
      'deleted_at',
    ])
    .where('sub_id', '=', subId)
    .where('contact_id', '=', sql<string>`any(${ids}::text[])`)
    .execute()
}
