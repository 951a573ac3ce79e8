import { sql, type Expression, type SqlBool } from 'kysely'
import type { Executor } from '../db/transaction.js'
import type { PackageRow } from '../packages/packages.repo.js'
import type { ListFilter, ParsedSearch, Sort } from './search.parse.js'

/** LIKE pattern for a user value: its own %, _ and \ are literal. */
function likePattern(value: string, position: ParsedSearch['position']): string {
  const v = value.replace(/[\\%_]/g, (c) => `\\${c}`)
  return position === 'starts' ? `${v}%` : position === 'ends' ? `%${v}` : `%${v}%`
}

const tnValue = (v: string) => v.replace(/\s+/g, '').toUpperCase()

/** The WHERE of one search term: each form matches one index of migration 0006. */
function searchCondition(subId: string, s: ParsedSearch, filter: ListFilter): Expression<SqlBool> {
  const lowered = s.value.toLowerCase()
  const pat = likePattern(lowered, s.position)
  switch (s.field) {
    case 'trackingNumber': {
      const v = tnValue(s.value)
      if (s.position === 'starts') return sql<SqlBool>`p.tracking_number like ${likePattern(v, 'starts')}`
      // reverse() turns a suffix into a prefix, which the reverse index serves.
      if (s.position === 'ends') return sql<SqlBool>`reverse(p.tracking_number) like ${likePattern([...v].reverse().join(''), 'starts')}`
      return sql<SqlBool>`p.tracking_number like ${likePattern(v, 'contains')}`
    }
    case 'packageId':
      return s.position === 'contains' ? sql<SqlBool>`p.package_id = ${lowered}` : sql<SqlBool>`lower(p.package_id) like ${pat}`
    case 'comment':
      return sql<SqlBool>`lower(p.comment) like ${pat}`
    case 'packageLocation':
      return filter.includeEmptyPackageLocation
        ? sql<SqlBool>`(lower(p.package_location) like ${pat} or p.package_location is null or p.package_location = '')`
        : sql<SqlBool>`lower(p.package_location) like ${pat}`
    case 'lockerBank':
      return sql<SqlBool>`lower(p.locker_bank) like ${pat}`
    case 'carrier.name':
      return sql<SqlBool>`p.carrier_id in (select carrier_id from carriers where (sub_id is null or sub_id = ${subId}) and lower(name) like ${pat})`
    case 'receiver.name':
    case 'sender.name':
    case 'givenTo.name': {
      const column = sql.ref(s.field === 'receiver.name' ? 'p.receiver_id' : s.field === 'sender.name' ? 'p.sender_id' : 'p.given_to_id')
      // Second tier: the same text in the contact's email, personal id or company, or in any custom-field value.
      const contactMatch = filter.secondTier
        ? sql`(lower(c.name) like ${pat} or lower(c.email) like ${pat} or lower(c.personal_id) like ${pat} or lower(c.company) like ${pat})`
        : sql`lower(c.name) like ${pat}`
      const byContact = sql<SqlBool>`${column} in (select c.contact_id from contacts c where c.sub_id = ${subId} and ${contactMatch})`
      if (!filter.secondTier) return byContact
      return sql<SqlBool>`(${byContact} or exists (select 1 from jsonb_array_elements(p.custom_fields) cf where lower(cf->>'value') like ${pat}))`
    }
    default: {
      const name = s.field.slice('customFields.'.length).toLowerCase()
      return sql<SqlBool>`exists (select 1 from jsonb_array_elements(p.custom_fields) cf join custom_fields d on d.custom_field_id = cf->>'customFieldId' and d.sub_id = ${subId} and lower(d.name) = ${name} where lower(cf->>'value') like ${pat})`
    }
  }
}

function filtered(db: Executor, subId: string, f: ListFilter) {
  let q = db.selectFrom('packages as p').where('p.sub_id', '=', subId)
  if (f.search) q = q.where(searchCondition(subId, f.search, f))
  if (f.statuses) q = q.where('p.current_status', 'in', f.statuses.length ? f.statuses : ['-'])
  if (f.siteId) {
    q = q.where((eb) => eb('p.site_id', 'in', eb.selectFrom('inbound_sites as s').select('s.site_id').where('s.sub_id', '=', subId)
      .where((w) => w.or([w('s.site_id', '=', f.siteId!), sql<SqlBool>`s.ancestor_ids @> array[${f.siteId!}]::text[]`]))))
  }
  // "created or updated in range": either timestamp falls inside it.
  if (f.startDate || f.endDate) {
    const { startDate: start, endDate: end } = f
    q = q.where((eb) => {
      const within = (col: 'p.created_at' | 'p.updated_at') => eb.and([...(start ? [eb(col, '>=', start)] : []), ...(end ? [eb(col, '<=', end)] : [])])
      return eb.or([within('p.created_at'), within('p.updated_at')])
    })
  }
  return q
}

const SORT_SQL = {
  insertTimestamp: sql.ref('p.created_at'),
  updateTimestamp: sql.ref('p.updated_at'),
  trackingNumber: sql.ref('p.tracking_number'),
  currentStatus: sql.ref('p.current_status'),
  deliveryTime: sql.ref('p.delivery_time'),
  'receiver.name': sql`(select lower(r.name) from contacts r where r.contact_id = p.receiver_id)`,
} as const

/** The page query alone, also compiled by bench/explain-search.ts to check its plan. */
export function pageQuery(db: Executor, subId: string, f: ListFilter, sort: Sort, offset: number, limit: number) {
  // NULLS LAST only where a column can be null: on NOT NULL columns it would stop the planner from
  // walking the (DESC = NULLS FIRST) indexes in order.
  const nullable = sort.field === 'deliveryTime' || sort.field === 'receiver.name'
  const dir = sort.desc ? (nullable ? sql`desc nulls last` : sql`desc`) : nullable ? sql`asc nulls last` : sql`asc`
  // Ids only: the records are read afterwards by the one-query read model.
  return filtered(db, subId, f).select('p.package_id').orderBy(sql`${SORT_SQL[sort.field]} ${dir}`).orderBy('p.package_id', sort.desc ? 'desc' : 'asc').offset(offset).limit(limit)
}

/**
 * Counting every match of a broad filter over millions of rows costs more than the page itself, and
 * grows with the table: totalCount is exact up to COUNT_CAP and reported as capped beyond it.
 */
export const COUNT_CAP = 10_000

export async function searchPage(db: Executor, subId: string, f: ListFilter, sort: Sort, offset: number, limit: number): Promise<{ ids: string[]; total: number; capped: boolean }> {
  const [rows, counted] = await Promise.all([
    pageQuery(db, subId, f, sort, offset, limit).execute(),
    db.selectFrom(filtered(db, subId, f).select(sql`1`.as('one')).limit(COUNT_CAP + 1).as('matches'))
      .select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ])
  const n = Number(counted.n)
  return { ids: rows.map((r) => r.package_id), total: Math.min(n, COUNT_CAP), capped: n > COUNT_CAP }
}

/** Keyset batches over every matching row, for exports of any size in bounded memory. */
export async function* searchAll(db: Executor, subId: string, f: ListFilter, sort: Sort, batch = 1000): AsyncGenerator<Array<Pick<PackageRow, 'package_id'>>> {
  const column = sort.field === 'updateTimestamp' ? 'p.updated_at' : sort.field === 'trackingNumber' ? 'p.tracking_number' : sort.field === 'currentStatus' ? 'p.current_status' : 'p.created_at'
  let after: { value: unknown; id: string } | undefined
  for (;;) {
    let q = filtered(db, subId, f).select(['p.package_id', sql.ref(column).as('sort_key')])
    if (after) {
      const cmp = sort.desc ? sql`<` : sql`>`
      q = q.where(sql<SqlBool>`(${sql.ref(column)}, p.package_id) ${cmp} (${after.value}, ${after.id})`)
    }
    const rows = (await q.orderBy(column, sort.desc ? 'desc' : 'asc').orderBy('p.package_id', sort.desc ? 'desc' : 'asc').limit(batch).execute()) as Array<{ package_id: string; sort_key: unknown }>
    if (rows.length === 0) return
    yield rows
    if (rows.length < batch) return
    const last = rows[rows.length - 1]!
    after = { value: last.sort_key, id: last.package_id }
  }
}
