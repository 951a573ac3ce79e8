import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { SiteInfo } from '../../sites/index.js'
import type { ContactLike } from '../model/deps.js'
import type { RecordContext } from '../model/record.js'
import type { PackageRow } from './packages.js'

/**
 * The read model of a package record: the package row with what only the database can say fresh
 * (its three contacts, the names of its custom fields, its site's postal code) in ONE query. It
 * reads the companion tables directly instead of going through their services, deliberately: a
 * record is read far more often than it is written, and one round trip instead of five is what keeps
 * Get, search pages and decode fast. The rest (sites, carrier) is reference data the caller renders
 * from memory (see RecordReferences): a site lookup per contact was most of this query's work.
 * Writes still go through each domain's service and rules.
 */
// Scalar subqueries rather than a join: each is one primary-key lookup, and the planner does not
// search join orders.
const contactById = (idExpr: string) =>
  sql.raw(`(select jsonb_build_object(
  'contactId', c.contact_id, 'contactType', c.contact_type, 'name', c.name, 'company', c.company, 'email', c.email, 'phone', c.phone,
  'personalId', c.personal_id, 'locationSiteId', c.location_site_id, 'mailStopSiteId', c.mail_stop_site_id, 'status', c.status,
  'deleted', c.deleted_at is not null)
  from contacts c where c.contact_id = ${idExpr})`)

interface JoinedRow extends PackageRow {
  j_zip: { locationId: string; postalCode: string | null } | null
  j_sender: ContactLike | null
  j_receiver: ContactLike | null
  j_given_to: ContactLike | null
  j_fields: Array<{ customFieldId: string; name: string; status: string }> | null
}

/** Sites and carriers by id, as the sites and carriers services keep them (in memory, briefly). */
export interface RecordReferences {
  sites: { getInfos(subId: string, ids: string[]): Promise<Map<string, SiteInfo>> }
  carriers: { getVisible(subId: string, ids: string[]): Promise<Map<string, { carrierId: string; name: string }>> }
}

/** Packages by id, or by normalized tracking number (the active package of each number, else its latest archived one). */
export type RecordFilter = { packageIds: string[] } | { trackingNumbers: string[] }

/**
 * The values as a `values` list padded to a power of two by repeating its last value. The statement
 * is prepared (see prepared-statements.ts), and PostgreSQL keeps a generic plan only when it costs
 * no more than the custom ones: an array parameter (`= any($1)`) is estimated at ten rows, more
 * than any custom plan of a short page, so every call was planned afresh (its subqueries, most of
 * the query's cost). A fixed list of n parameters keeps its generic plan after five calls; padding
 * leaves a handful of texts to prepare (the repeats are dropped by `distinct`).
 */
function padded(values: string[]): string[] {
  let n = 1
  while (n < values.length) n *= 2
  return Array.from({ length: n }, (_, i) => values[Math.min(i, values.length - 1)]!)
}

function keyList(values: string[]) {
  return sql`(select distinct key from (values ${sql.join(padded(values).map((v) => sql`(${v})`))}) as t(key))`
}

/**
 * The one statement of a record read (bench/explain-search.ts and bench/explain-records.ts check
 * its plans). Each key is its own lateral lookup with `limit 1` (issue 26.8): a plan PostgreSQL
 * cannot flatten into a join, so each lookup is an equality on an index whatever the table's size.
 * As `p.package_id in (…)` the generic plan kept on a 200-row table was a sequential scan, and it
 * stayed the plan (4–14 ms at 5,000 rows) until the next ANALYZE invalidated it.
 */
export function recordQuery(subId: string, by: RecordFilter) {
  const columns = sql`p.*,
      (select jsonb_build_object('locationId', l.location_id, 'postalCode', l.address->>'postalCode')
         from locations l where l.location_id = (select s.location_id from inbound_sites s where s.site_id = p.site_id)) as j_zip,
      ${contactById('p.sender_id')} as j_sender,
      ${contactById('p.receiver_id')} as j_receiver,
      ${contactById('p.given_to_id')} as j_given_to,
      case when jsonb_array_length(p.custom_fields) = 0 then null else (
        select jsonb_agg(jsonb_build_object('customFieldId', d.custom_field_id, 'name', d.name, 'status', d.status))
          from custom_fields d where d.sub_id = p.sub_id and d.custom_field_id in (select v->>'customFieldId' from jsonb_array_elements(p.custom_fields) v)) end as j_fields`
  if ('packageIds' in by)
    return sql<JoinedRow>`
    select ${columns}
    from ${keyList(by.packageIds)} k
    cross join lateral (select * from packages p where p.sub_id = ${subId} and p.package_id = k.key limit 1) p`
  // By tracking number the indexed `in` list stays, with `distinct on` picking a number's active
  // package, else its latest archived one: the lateral form measured 0.62–0.73 of it (BENCH_VS
  // against the previous release, then 1.26× back), and the plan that rotted was the read by ids.
  return sql<JoinedRow>`
    select distinct on (p.tracking_number) ${columns}
    from packages p
    where p.sub_id = ${subId} and p.tracking_number in (${sql.join(padded(by.trackingNumbers))})
    order by p.tracking_number, p.archived asc, p.created_at desc`
}

/**
 * The rows `by` selects and everything their records show. Rows come back in the order of
 * `by.packageIds` (search pages are sorted); each tracking number gives one row at most: its active
 * package, else its latest archived one.
 */
export async function loadRecords(
  db: Executor,
  refs: RecordReferences,
  subId: string,
  by: RecordFilter,
): Promise<{ rows: PackageRow[]; ctx: RecordContext }> {
  const { rows } = await recordQuery(subId, by).execute(db)
  const ctx: RecordContext = {
    sites: new Map(),
    contacts: new Map(),
    carriers: new Map(),
    customFields: new Map(),
    zips: new Map(),
  }
  const siteIds = new Set<string>()
  const carrierIds = new Set<string>()
  const byId = new Map<string, PackageRow>()
  for (const r of rows) {
    const { j_zip, j_sender, j_receiver, j_given_to, j_fields, ...row } = r
    if (row.site_id) siteIds.add(row.site_id)
    if (row.carrier_id) carrierIds.add(row.carrier_id)
    if (j_zip?.postalCode) ctx.zips.set(j_zip.locationId, j_zip.postalCode)
    for (const c of [j_sender, j_receiver, j_given_to]) {
      if (!c) continue
      ctx.contacts.set(c.contactId, c)
      if (c.locationSiteId) siteIds.add(c.locationSiteId)
      if (c.mailStopSiteId) siteIds.add(c.mailStopSiteId)
    }
    for (const f of j_fields ?? []) ctx.customFields.set(f.customFieldId, { name: f.name, status: f.status })
    byId.set(row.package_id, row)
  }
  const [sites, carriers] = await Promise.all([
    siteIds.size ? refs.sites.getInfos(subId, [...siteIds]) : new Map<string, SiteInfo>(),
    carrierIds.size
      ? refs.carriers.getVisible(subId, [...carrierIds])
      : new Map<string, { carrierId: string; name: string }>(),
  ])
  ctx.sites = sites
  ctx.carriers = carriers
  const ordered =
    'packageIds' in by
      ? [...new Set(by.packageIds)].map((id) => byId.get(id)).filter((r): r is PackageRow => !!r)
      : [...byId.values()]
  return { rows: ordered, ctx }
}
