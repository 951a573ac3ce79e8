import type { Db } from '../db/database.js'
import type { ContactLike } from '../packages/packages.deps.js'
import { toRecord, type RecordContext } from '../packages/packages.record.js'
import type { PackageRecord } from '../packages/packages.schemas.js'
import { toSiteRef } from '../sites/sites.service.js'
import type { ListFilter, Sort } from './search.parse.js'
import * as repo from './search.repo.js'

/** Contacts kept between batches of one export; past this, the cache starts over. */
const CONTACT_CACHE = 50_000

/**
 * Every matching package as records, in the page order, batch by batch: the export's read model.
 * The per-page read model (packages.read.ts) looks each reference up per package, a dozen index
 * lookups a row; here the sites, carriers, custom fields and postal codes are read once, the
 * contacts once per batch, and the same toRecord renders them, so a row reads as in JSON.
 * The next batch is read while the caller writes out the current one.
 */
export async function* exportRecords(db: Db, subId: string, filter: ListFilter, sort: Sort, batchSize: number): AsyncGenerator<PackageRecord[]> {
  const refs = await repo.exportReferences(db, subId)
  const ctx: RecordContext = { sites: new Map(), contacts: new Map(), carriers: new Map(), customFields: new Map(), zips: new Map() }
  for (const s of refs.sites) ctx.sites.set(s.site_id, { ...toSiteRef(s), locationId: s.location_id, status: s.status, deleted: s.deleted_at !== null })
  for (const c of refs.carriers) ctx.carriers.set(c.carrier_id, { carrierId: c.carrier_id, name: c.name })
  for (const f of refs.fields) ctx.customFields.set(f.custom_field_id, { name: f.name, status: f.status })
  for (const z of refs.zips) if (z.zip !== null) ctx.zips.set(z.location_id, z.zip)

  const batches = readAhead(repo.searchAllRows(db, subId, filter, sort, batchSize))
  for await (const rows of batches) {
    const missing = new Set<string>()
    for (const r of rows) for (const id of [r.sender_id, r.receiver_id, r.given_to_id]) if (id !== null && !ctx.contacts.has(id)) missing.add(id)
    if (ctx.contacts.size + missing.size > CONTACT_CACHE) ctx.contacts.clear()
    for (const c of await repo.exportContacts(db, subId, [...missing])) {
      const contact: ContactLike = {
        contactId: c.contact_id, contactType: c.contact_type, name: c.name, company: c.company, email: c.email, phone: c.phone, personalId: c.personal_id,
        locationSiteId: c.location_site_id, mailStopSiteId: c.mail_stop_site_id, status: c.status, deleted: c.deleted_at !== null,
      }
      ctx.contacts.set(c.contact_id, contact)
    }
    yield rows.map((r) => toRecord(ctx, r))
  }
}

/**
 * Reads one item ahead: the next item is being produced while the consumer handles this one.
 * Closing the consumer closes the source once its pending item has settled.
 */
export async function* readAhead<T>(source: AsyncGenerator<T>): AsyncGenerator<T> {
  const ahead = () => {
    const p = source.next()
    // Handled here; still rejects where it is awaited below.
    p.catch(() => {})
    return p
  }
  let next: Promise<IteratorResult<T>> | undefined = ahead()
  try {
    for (;;) {
      const r: IteratorResult<T> = await next!
      next = undefined
      if (r.done) return
      next = ahead()
      yield r.value
    }
  } finally {
    if (next) await next.catch(() => undefined)
    await source.return(undefined)
  }
}
