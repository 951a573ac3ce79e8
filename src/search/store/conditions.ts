import { sql, type SqlBool } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { ParsedSearch } from '../model/parse.js'

// The pieces of a search's WHERE that the page query, the count and the tallies share, so that
// all three mean the same filter.

/** LIKE pattern for a user value: its own %, _ and \ are literal. */
export function likePattern(value: string, position: ParsedSearch['position']): string {
  const v = value.replace(/[\\%_]/g, (c) => `\\${c}`)
  return position === 'starts' ? `${v}%` : position === 'ends' ? `%${v}` : `%${v}%`
}

/** The subscription's contacts whose name matches the pattern: a (first-tier) name search. */
export const contactsNamed = (subId: string, pat: string) =>
  sql`select c.contact_id from contacts c where c.sub_id = ${subId} and lower(c.name) like ${pat}`

/** The site and every site under it (`location` / `inboundSiteId`). */
export const sitesUnder = (db: Executor, subId: string, siteId: string) =>
  db
    .selectFrom('inbound_sites as s')
    .select('s.site_id')
    .where('s.sub_id', '=', subId)
    .where((w) => w.or([w('s.site_id', '=', siteId), sql<SqlBool>`s.ancestor_ids @> array[${siteId}]::text[]`]))

/** A status filter as SQL takes it: an empty list matches nothing. */
export const statusList = (statuses: string[]) => (statuses.length ? statuses : ['-'])
