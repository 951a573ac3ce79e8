import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

// What package searches and exports need of custom-field definitions, as SQL the customfields
// domain owns (see contacts/store/package-search.ts).

/** The ids of the subscription's fields named `lowerName` (any case): a `customFields.<name>:` search. */
export const fieldIdsNamed = (subId: string, lowerName: string) =>
  sql`select custom_field_id from custom_fields where sub_id = ${subId} and lower(name) = ${lowerName}`

/** Every field's name and status, read once per export. */
export const fieldNames = (db: Executor, subId: string) =>
  db.selectFrom('custom_fields').select(['custom_field_id', 'name', 'status']).where('sub_id', '=', subId).execute()
