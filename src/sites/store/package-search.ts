import { sql, type SqlBool } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import { COLUMNS } from './sites.js'
import './tables.js'

// What package searches and exports need of sites, as queries the sites domain owns (see
// contacts/store/package-search.ts).

/** The ids of a site and of every site under it (a search's `location` / `inboundSiteId`). */
export const siteIdsUnder = (db: Executor, subId: string, siteId: string) =>
  db
    .selectFrom('inbound_sites as s')
    .select('s.site_id')
    .where('s.sub_id', '=', subId)
    .where((w) => w.or([w('s.site_id', '=', siteId), sql<SqlBool>`s.ancestor_ids @> array[${siteId}]::text[]`]))

/** Every site of the subscription, deleted ones too (packages keep their history): read once per export. */
export const sitesForExport = (db: Executor, subId: string) =>
  db.selectFrom('inbound_sites').select(COLUMNS).where('sub_id', '=', subId).execute()
