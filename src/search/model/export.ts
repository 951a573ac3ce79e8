import type { Db } from '../../platform/db/database.js'
import type { ContactLike } from '../../packages/index.js'
import { toRecord, type RecordContext } from '../../packages/index.js'
import { toSiteRef } from '../../sites/index.js'
import { contactsForExport } from '../../contacts/index.js'
import { plainCell, type DirectCell } from '../../packages/index.js'
import { FIELD_ENTRIES } from '../../packages/index.js'
import { csvCell, valueAt, type Column } from './mapping.js'
import type { ListFilter, Sort } from './parse.js'
import * as repo from '../store/search.js'
import * as references from '../store/export-references.js'

/** Contacts kept between batches of one export; past this, the cache starts over. */
const CONTACT_CACHE = 50_000

type Row = Parameters<typeof toRecord>[1]

/**
 * Every matching package, in the page order, batch by batch: the export's read model. The
 * per-page read model (packages/store/read.ts) looks each reference up per package, a dozen index
 * lookups a row; here the sites, carriers, custom fields and postal codes are read once, the
 * contacts once per batch, and rows are rendered with the same toRecord (see exportCells), so a
 * row reads as in JSON. The next batch is read while the caller writes out the current one.
 */
export async function* exportRows(
  db: Db,
  subId: string,
  filter: ListFilter,
  sort: Sort,
  batchSize: number,
  columns?: readonly (keyof Row)[],
): AsyncGenerator<{ rows: Row[]; ctx: RecordContext }> {
  const refs = await references.exportReferences(db, subId)
  const ctx: RecordContext = {
    sites: new Map(),
    contacts: new Map(),
    carriers: new Map(),
    customFields: new Map(),
    zips: new Map(),
  }
  for (const s of refs.sites)
    ctx.sites.set(s.site_id, {
      ...toSiteRef(s),
      locationId: s.location_id,
      status: s.status,
      deleted: s.deleted_at !== null,
    })
  for (const c of refs.carriers) ctx.carriers.set(c.carrier_id, { carrierId: c.carrier_id, name: c.name })
  for (const f of refs.fields) ctx.customFields.set(f.custom_field_id, { name: f.name, status: f.status })
  for (const z of refs.zips) if (z.zip !== null) ctx.zips.set(z.location_id, z.zip)

  const batches = readAhead(repo.searchAllRows(db, subId, filter, sort, batchSize, columns))
  for await (const rows of batches) {
    const missing = new Set<string>()
    // A contact column not selected (undefined) names no contact to read.
    for (const r of rows)
      for (const id of [r.sender_id, r.receiver_id, r.given_to_id]) if (id && !ctx.contacts.has(id)) missing.add(id)
    if (ctx.contacts.size + missing.size > CONTACT_CACHE) ctx.contacts.clear()
    for (const c of await contactsForExport(db, subId, [...missing])) {
      const contact: ContactLike = {
        contactId: c.contact_id,
        contactType: c.contact_type,
        name: c.name,
        company: c.company,
        email: c.email,
        phone: c.phone,
        personalId: c.personal_id,
        locationSiteId: c.location_site_id,
        mailStopSiteId: c.mail_stop_site_id,
        status: c.status,
        deleted: c.deleted_at !== null,
      }
      ctx.contacts.set(c.contact_id, contact)
    }
    yield { rows, ctx }
  }
}

/**
 * The cells exports ask for most, read straight from the row: the values toRecord gives them
 * (test/search/order.test.ts checks every one against the JSON, each alone and all together),
 * without building the whole record, which at a million rows is most of an export's time and
 * garbage. Every plain field of the registry has one, and the paths its other fields declare.
 * When every column of an export is one of these, only the table columns they read are selected.
 * Any other path renders the record from the whole row.
 */
export const DIRECT_CELLS: Readonly<Record<string, DirectCell>> = Object.fromEntries(
  FIELD_ENTRIES.flatMap(([name, f]) => {
    if (f.cells) return Object.entries(f.cells)
    return f.value && f.column ? [[name, plainCell(f.value, f.column)]] : []
  }),
)

/** The default export's columns (an empty mapping): the registry's CSV positions. */
export const FULL_COLUMNS: Column[] = FIELD_ENTRIES.flatMap(([name, f]) =>
  Object.entries(typeof f.csv === 'number' ? { [name]: f.csv } : (f.csv ?? {})),
)
  .sort(([, a], [, b]) => a - b)
  .map(([path]) => ({ path, label: path }))

/** How an export turns rows into cells, and the table columns it reads (undefined: all of them). */
export interface ExportCells {
  cells(r: Row, ctx: RecordContext): string[]
  columns: readonly (keyof Row)[] | undefined
}

/** Each column's CSV cell for a row; the record is rendered only when some column needs it. */
export function exportCells(columns: Column[]): ExportCells {
  const direct = columns.map((c) => DIRECT_CELLS[c.path])
  if (direct.every((d) => d !== undefined)) {
    return {
      cells: (r, ctx) => direct.map((d) => csvCell(d.cell(r, ctx))),
      columns: [...new Set<keyof Row>(['package_id', ...direct.flatMap((d) => d.columns)])],
    }
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
