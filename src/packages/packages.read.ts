import { sql } from 'kysely'
import type { Executor } from '../db/transaction.js'
import { toSiteRef, type SiteInfo } from '../sites/sites.service.js'
import type { SiteRow } from '../sites/sites.repo.js'
import type { ContactLike } from './packages.deps.js'
import type { RecordContext } from './packages.record.js'
import type { PackageRow } from './packages.repo.js'

/**
 * The read model of a package record: the package row and everything its DETAILED record shows
 * (carrier, the three contacts with their sites, the current site and its location's postal code,
 * custom field names) in ONE query. It reads the companion tables directly instead of going through
 * their services, deliberately: a record is read far more often than it is written, and one round
 * trip instead of five is what keeps Get, search pages and decode fast. Writes still go through
 * each domain's service and rules.
 */
const siteObject = (a: string) => `jsonb_build_object(
  'site_id', ${a}.site_id, 'sub_id', ${a}.sub_id, 'name', ${a}.name, 'type', ${a}.type, 'parent_id', ${a}.parent_id,
  'location_id', ${a}.location_id, 'ancestor_ids', ${a}.ancestor_ids, 'path_names', ${a}.path_names, 'status', ${a}.status,
  'deleted', ${a}.deleted_at is not null)`
// Scalar subqueries rather than a 13-way join: each is one primary-key lookup, and the planner
// does not search join orders (a join of that width cost ~8 ms of planning per call).
const siteById = (idExpr: string, a: string) => `(select ${siteObject(a)} from inbound_sites ${a} where ${a}.site_id = ${idExpr})`
const contactById = (idExpr: string) => sql.raw(`(select jsonb_build_object(
  'contactId', c.contact_id, 'contactType', c.contact_type, 'name', c.name, 'company', c.company, 'email', c.email, 'phone', c.phone,
  'personalId', c.personal_id, 'locationSiteId', c.location_site_id, 'mailStopSiteId', c.mail_stop_site_id, 'status', c.status,
  'deleted', c.deleted_at is not null, 'location', ${siteById('c.location_site_id', 'cl')}, 'mailStop', ${siteById('c.mail_stop_site_id', 'cm')})
  from contacts c where c.contact_id = ${idExpr})`)

interface JoinedRow extends PackageRow {
  j_carrier: { carrierId: string; name: string } | null
  j_site: (SiteRow & { deleted: boolean }) | null
  j_zip: string | null
  j_sender: JoinedContact | null
  j_receiver: JoinedContact | null
  j_given_to: JoinedContact | null
  j_fields: Array<{ customFieldId: string; name: string; status: string }> | null
}
type JoinedContact = ContactLike & { location: (SiteRow & { deleted: boolean }) | null; mailStop: (SiteRow & { deleted: boolean }) | null }

export type RecordFilter = { packageIds: string[] } | { trackingNumber: string }

/**
 * The ids as `p.package_id in (…)`, the list padded to a power of two by repeating its last id.
 * The statement is prepared (see prepared-statements.ts), and PostgreSQL keeps a generic plan only
 * when it costs no more than the custom ones: an array parameter (`= any($1)`) is estimated at ten
 * rows, more than any custom plan of a short page, so every call was planned afresh (a dozen
 * subqueries, most of the query's cost). A fixed list of n parameters is estimated at n rows either
 * way, so after five calls the generic plan is kept; padding leaves a handful of texts to prepare.
 */
function idsCondition(ids: string[]) {
  let n = 1
  while (n < ids.length) n *= 2
  const padded = Array.from({ length: n }, (_, i) => ids[Math.min(i, ids.length - 1)])
  return n === 1 ? sql`p.package_id = ${ids[0]}` : sql`p.package_id in (${sql.join(padded)})`
}

export async function loadJoined(db: Executor, subId: string, by: RecordFilter): Promise<{ rows: PackageRow[]; ctx: RecordContext }> {
  const where = 'packageIds' in by ? idsCondition(by.packageIds) : sql`p.tracking_number = ${by.trackingNumber}`
  const order = 'packageIds' in by ? sql`` : sql`order by p.archived asc, p.created_at desc limit 1`
  const { rows } = await sql<JoinedRow>`
    select p.*,
      (select jsonb_build_object('carrierId', car.carrier_id, 'name', car.name) from carriers car where car.carrier_id = p.carrier_id) as j_carrier,
      ${sql.raw(siteById('p.site_id', 's'))} as j_site,
      (select l.address->>'postalCode' from inbound_sites s2 join locations l on l.location_id = s2.location_id where s2.site_id = p.site_id) as j_zip,
      ${contactById('p.sender_id')} as j_sender,
      ${contactById('p.receiver_id')} as j_receiver,
      ${contactById('p.given_to_id')} as j_given_to,
      case when jsonb_array_length(p.custom_fields) = 0 then null else (
        select jsonb_agg(jsonb_build_object('customFieldId', d.custom_field_id, 'name', d.name, 'status', d.status))
          from custom_fields d where d.sub_id = p.sub_id and d.custom_field_id in (select v->>'customFieldId' from jsonb_array_elements(p.custom_fields) v)) end as j_fields
    from packages p
    where p.sub_id = ${subId} and ${where} ${order}`.execute(db)

  const ctx: RecordContext = { sites: new Map(), contacts: new Map(), carriers: new Map(), customFields: new Map(), zips: new Map() }
  const addSite = (s: (SiteRow & { deleted: boolean }) | null) => {
    if (!s || ctx.sites.has(s.site_id)) return
    const info: SiteInfo = { ...toSiteRef(s), locationId: s.location_id, status: s.status, deleted: s.deleted }
    ctx.sites.set(s.site_id, info)
  }
  const byId = new Map<string, PackageRow>()
  for (const r of rows) {
    const { j_carrier, j_site, j_zip, j_sender, j_receiver, j_given_to, j_fields, ...row } = r
    if (j_carrier) ctx.carriers.set(j_carrier.carrierId, j_carrier)
    addSite(j_site)
    if (j_site?.location_id && j_zip) ctx.zips.set(j_site.location_id, j_zip)
    for (const c of [j_sender, j_receiver, j_given_to]) {
      if (!c) continue
      const { location, mailStop, ...contact } = c
      ctx.contacts.set(contact.contactId, contact)
      addSite(location)
      addSite(mailStop)
    }
    for (const f of j_fields ?? []) ctx.customFields.set(f.customFieldId, { name: f.name, status: f.status })
    byId.set(row.package_id, row as PackageRow)
  }
  // Keep the caller's order (search pages are sorted).
  const ordered = 'packageIds' in by ? by.packageIds.map((id) => byId.get(id)).filter((r): r is PackageRow => !!r) : [...byId.values()]
  return { rows: ordered, ctx }
}
