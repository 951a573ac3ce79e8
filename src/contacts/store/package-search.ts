import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import { COLUMNS } from './contacts.js'

// What other domains' package searches and exports need of contacts, as SQL the contacts domain
// owns: search composes these into its own statements (one round trip) without naming the table.

/** The ids of the subscription's contacts whose name matches a LIKE pattern (lower case): a first-tier search. */
export const contactIdsNamed = (subId: string, pat: string) =>
  sql`select c.contact_id from contacts c where c.sub_id = ${subId} and lower(c.name) like ${pat}`

/** The same in the name, email, personal id or company: a second-tier search. */
export const contactIdsMatching = (subId: string, pat: string) =>
  sql`select c.contact_id from contacts c where c.sub_id = ${subId} and (lower(c.name) like ${pat} or lower(c.email) like ${pat} or lower(c.personal_id) like ${pat} or lower(c.company) like ${pat})`

/** The contacts an export's batch refers to, deleted ones too (packages keep their history). */
export async function contactsForExport(db: Executor, subId: string, ids: string[]) {
  if (ids.length === 0) return []
  return db
    .selectFrom('contacts')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('contact_id', '=', sql<string>`any(${ids}::text[])`)
    .execute()
}
