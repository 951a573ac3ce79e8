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
export async function* exportRows(db: Db, subId: string, filter: ListFilter, sort: Sort, batchSize: number, columns?: readonly (keyof Row)[]): AsyncGenerator<{ rows: Row[]; ctx: RecordContext }> {
  const refs = await repo.exportReferences(db, subId)
  const ctx: RecordContext = { sites: new Map(), contacts: new Map(), carriers: new Map(), customFields: new Map(), zips: new Map() }
  for (const s of refs.sites) ctx.sites.set(s.site_id, { ...toSiteRef(s), locationId: s.location_id, status: s.status, deleted: s.deleted_at !== null })
  for (const c of refs.carriers) ctx.carriers.set(c.carrier_id, { carrierId: c.carrier_id, name: c.name })
  for (const f of refs.fields) ctx.customFields.set(f.custom_field_id, { name: f.name, status: f.status })
  for (const z of refs.zips) if (z.zip !== null) ctx.zips.set(z.location_id, z.zip)

  const batches = readAhead(repo.searchAllRows(db, subId, filter, sort, batchSize, columns))
  for await (const rows of batches) {
    const missing = new Set<string>()
    // A contact column not selected (undefined) names no contact to read.
    for (const r of rows) for (const id of [r.sender_id, r.receiver_id, r.given_to_id]) if (id && !ctx.contacts.has(id)) missing.add(id)
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

/** A cell read straight from the row: the columns it reads, and how. */
interface DirectCell {
  columns: readonly (keyof Row)[]
  cell(r: Row, ctx: RecordContext): Cell
}
const from = (columns: readonly (keyof Row)[], cell: DirectCell['cell']): DirectCell => ({ columns, cell })
const own = <K extends keyof Row>(column: K, cell: (v: Row[K]) => Cell): DirectCell => from([column], (r) => cell(r[column]))

const contactField = (column: 'sender_id' | 'receiver_id' | 'given_to_id', field: 'contactId' | 'name' | 'company' | 'email' | 'phone' | 'personalId') =>
  from([column], (r, ctx) => {
    const id = r[column]
    const c = id ? ctx.contacts.get(id) : undefined
    return c ? text(c[field]) : ''
  })
const siteField = (field: 'inboundSiteId' | 'name' | 'locationHierarchy') => from(['site_id'], (r, ctx) => (r.site_id ? text(ctx.sites.get(r.site_id)?.[field]) : ''))

/**
 * The scalar columns exports ask for most, read straight from the row: the values toRecord gives
 * them (test/search/order.test.ts checks every one against the JSON, each alone and all together),
 * without building the whole record, which at a million rows is most of an export's time and
 * garbage. When every column of an export is one of these, only the table columns they read are
 * selected. Any other path renders the record from the whole row.
 */
export const DIRECT_CELLS: Readonly<Record<string, DirectCell>> = {
  packageId: own('package_id', (v) => v),
  trackingNumber: own('tracking_number', (v) => v),
  subId: own('sub_id', (v) => v),
  assetType: own('asset_type', (v) => v),
  currentStatus: own('current_status', (v) => v),
  damaged: own('damaged', (v) => v),
  archived: own('archived', (v) => v),
  timezone: own('timezone', (v) => v ?? ''),
  comment: own('comment', text),
  confirmationType: own('confirmation_type', text),
  additionalConfirmationType: own('additional_confirmation_type', text),
  packageLocation: own('package_location', text),
  lockerBank: own('locker_bank', text),
  lockerUnit: own('locker_unit', text),
  userName: own('user_name', (v) => v),
  receiveClerk: own('receive_clerk', text),
  deliveryClerk: own('delivery_clerk', text),
  deliveryTime: own('delivery_time', (v) => v?.toISOString() ?? ''),
  insertTimestamp: own('created_at', (v) => v.toISOString()),
  updateTimestamp: own('updated_at', (v) => v.toISOString()),
  version: own('version', (v) => v),
  'carrier.carrierId': from(['carrier_id'], (r, ctx) => (r.carrier_id ? text(ctx.carriers.get(r.carrier_id)?.carrierId) : '')),
  'carrier.name': from(['carrier_id'], (r, ctx) => (r.carrier_id ? text(ctx.carriers.get(r.carrier_id)?.name) : '')),
  'currentLocation.inboundSiteId': siteField('inboundSiteId'),
  'currentLocation.name': siteField('name'),
  'currentLocation.locationHierarchy': siteField('locationHierarchy'),
  locationZip: from(['site_id'], (r, ctx) => {
    const location = r.site_id ? ctx.sites.get(r.site_id)?.locationId : undefined
    return location ? text(ctx.zips.get(location)) : ''
  }),
  ...Object.fromEntries((['sender', 'receiver', 'givenTo'] as const).flatMap((who) => {
    const column = who === 'sender' ? 'sender_id' : who === 'receiver' ? 'receiver_id' : 'given_to_id'
    return (['contactId', 'name', 'company', 'email', 'phone', 'personalId'] as const).map((f) => [`${who}.${f}`, contactField(column, f)])
  })),
}

/** How an export turns rows into cells, and the table columns it reads (undefined: all of them). */
export interface ExportCells {
  cells(r: Row, ctx: RecordContext): string[]
  columns: readonly (keyof Row)[] | undefined
}

/** Each column's CSV cell for a row; the record is rendered only when some column needs it. */
export function exportCells(columns: Column[]): ExportCells {
  const direct = columns.map((c) => DIRECT_CELLS[c.path])
  if (direct.every((d) => d !== undefined)) {
    return { cells: (r, ctx) => direct.map((d) => csvCell(d.cell(r, ctx))), columns: [...new Set<keyof Row>(['package_id', ...direct.flatMap((d) => d.columns)])] }
  }
  return {
    cells: (r, ctx) => {
      const record = toRecord(ctx, r)
      return columns.map((c, i) => csvCell(direct[i] ? direct[i].cell(r, ctx) : valueAt(record, c.path)))
    },
    columns: undefined,
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
      const r: IteratorResult<T> = await next
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
