import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

// What package searches and exports need of carriers, as SQL the carriers domain owns (see
// contacts/store/package-search.ts). A subscription sees the shared carriers and its own.

/** The ids of the carriers whose name matches a LIKE pattern (lower case). */
export const carrierIdsNamed = (subId: string, pat: string) =>
  sql`select carrier_id from carriers where (sub_id is null or sub_id = ${subId}) and lower(name) like ${pat}`

/** Every carrier's name, read once per export. */
export const carrierNames = (db: Executor, subId: string) =>
  db
    .selectFrom('carriers')
    .select(['carrier_id', 'name'])
    .where((eb) => eb.or([eb('sub_id', 'is', null), eb('sub_id', '=', subId)]))
    .execute()
