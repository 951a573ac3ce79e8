import type { Db } from '../db/database.js'
import type { ContactLike } from '../packages/packages.deps.js'
import { toRecord, type RecordContext } from '../packages/packages.record.js'
import { toSiteRef } from '../sites/sites.service.js'
import { csvCell, valueAt, type Cell, type Column } from './search.mapping.js'
import type { ListFilter, Sort } from './search.parse.js'
import * as repo from './search.repo.js'

/** Contacts kept between batches of one export; past this, the cache starts over. */
const CONTACT_CACHE = 50_000

type Row = Parameters<typeof toRecord>[1]

/**
 * Every matching package, in the page order, batch by batch: the export's read model. The
 * per-page read model (packages.read.ts) looks each reference up per package, a dozen index
 * lookups a row; here the sites, carriers, custom fields and postal codes are read once, the
 * contacts once per batch, and rows are rendered with the same toRecord (see exportCells), so a
 * row reads as in JSON. The next batch is read while the caller writes out the current one.
 */
export async function* exportRows(db: Db, subId: string, filter: ListFilter, sort: Sort, batchSize: number): AsyncGenerator<{ rows: Row[]; ctx: RecordContext }> {
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
    yield { rows, ctx }
  }
}

const text = (v: string | null | undefined): Cell => v ?? ''
const contactField = (id: (r: Row) => string | null, field: 'contactId' | 'name' | 'company' | 'email' | 'phone' | 'personalId') =>
  (r: Row, ctx: RecordContext): Cell => {
    const c = id(r) === null ? undefined : ctx.contacts.get(id(r)!)
    return c ? text(c[field]) : ''
  }

/**
 * The scalar columns exports ask for most, read straight from the row: the values toRecord gives
 * them (test/search/order.test.ts checks every one against the JSON), without building the whole
 * record, which at a million rows is most of an export's time and garbage. Any other path renders
 * the record.
 */
export const DIRECT_CELLS: Readonly<Record<string, (r: Row, ctx: RecordContext) => Cell>> = {
  packageId: (r) => r.package_id,
  trackingNumber: (r) => r.tracking_number,
  subId: (r) => r.sub_id,
  assetType: (r) => r.asset_type,
  currentStatus: (r) => r.current_status,
  damaged: (r) => r.damaged,
  archived: (r) => r.archived,
  timezone: (r) => r.timezone ?? '',
  comment: (r) => text(r.comment),
  confirmationType: (r) => text(r.confirmation_type),
  additionalConfirmationType: (r) => text(r.additional_confirmation_type),
  packageLocation: (r) => text(r.package_location),
  lockerBank: (r) => text(r.locker_bank),
  lockerUnit: (r) => text(r.locker_unit),
  userName: (r) => r.user_name,
  receiveClerk: (r) => text(r.receive_clerk),
  deliveryClerk: (r) => text(r.delivery_clerk),
  deliveryTime: (r) => r.delivery_time?.toISOString() ?? '',
  insertTimestamp: (r) => r.created_at.toISOString(),
  updateTimestamp: (r) => r.updated_at.toISOString(),
  version: (r) => r.version,
  'carrier.carrierId': (r, ctx) => (r.carrier_id ? text(ctx.carriers.get(r.carrier_id)?.carrierId) : ''),
  'carrier.name': (r, ctx) => (r.carrier_id ? text(ctx.carriers.get(r.carrier_id)?.name) : ''),
  'currentLocation.inboundSiteId': (r, ctx) => (r.site_id ? text(ctx.sites.get(r.site_id)?.inboundSiteId) : ''),
  'currentLocation.name': (r, ctx) => (r.site_id ? text(ctx.sites.get(r.site_id)?.name) : ''),
  'currentLocation.locationHierarchy': (r, ctx) => (r.site_id ? text(ctx.sites.get(r.site_id)?.locationHierarchy) : ''),
  locationZip: (r, ctx) => {
    const location = r.site_id ? ctx.sites.get(r.site_id)?.locationId : undefined
    return location ? text(ctx.zips.get(location)) : ''
  },
  ...Object.fromEntries((['sender', 'receiver', 'givenTo'] as const).flatMap((who) => {
    const id = who === 'sender' ? (r: Row) => r.sender_id : who === 'receiver' ? (r: Row) => r.receiver_id : (r: Row) => r.given_to_id
    return (['contactId', 'name', 'company', 'email', 'phone', 'personalId'] as const).map((f) => [`${who}.${f}`, contactField(id, f)])
  })),
}

/** Each column's CSV cell for a row; the record is rendered only when some column needs it. */
export function exportCells(columns: Column[]): (r: Row, ctx: RecordContext) => string[] {
  const direct = columns.map((c) => DIRECT_CELLS[c.path])
  if (direct.every((d) => d !== undefined)) return (r, ctx) => direct.map((d) => csvCell(d!(r, ctx)))
  return (r, ctx) => {
    const record = toRecord(ctx, r)
    return columns.map((c, i) => csvCell(direct[i] ? direct[i]!(r, ctx) : valueAt(record, c.path)))
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
