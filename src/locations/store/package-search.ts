import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

/** Each location's postal code, read once per export of packages (a record's `zip`). */
export const postalCodes = (db: Executor, subId: string) =>
  db
    .selectFrom('locations')
    .select(['location_id', sql<string | null>`address->>'postalCode'`.as('zip')])
    .where('sub_id', '=', subId)
    .execute()
