import { sql, type CompiledQuery, type Expression, type RawBuilder, type SqlBool } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { PackageRow } from '../../packages/index.js'
import { normalizeTrackingNumber, reversed } from '../../packages/index.js'
import { contactIdsMatching, contactIdsNamed } from '../../contacts/index.js'
import { carrierIdsNamed } from '../../carriers/index.js'
import { fieldIdsNamed } from '../../customfields/index.js'
import { siteIdsUnder } from '../../sites/index.js'
import { likePattern, statusList } from './conditions.js'
import type { FieldColumn } from '../../packages/index.js'
import { unhandled } from '../../packages/index.js'
import {
  SEARCHABLE,
  SORTABLE,
  type FieldSort,
  type ListFilter,
  type ParsedSearch,
  type Sort,
  type SortField,
} from '../model/parse.js'
import { tallyCountQuery } from './tallies.js'

/**
 * Custom-field values: `package_custom_values()` (migration 0007) is the values as one lowered JSON
 * array text, under a trigram index. The value, JSON-escaped as it appears there, narrows the rows
 * with a contains pattern (a superset of every position); `exact` then checks the value, its
 * position and its field on those rows only.
 */
function customValueMatch(subId: string, lowered: string, pat: string, fieldName?: string): Expression<SqlBool> {
  const indexed = sql`package_custom_values(p.custom_fields) like ${likePattern(JSON.stringify(lowered).slice(1, -1), 'contains')}`
  const exact =
    fieldName === undefined
      ? sql`exists (select 1 from jsonb_array_elements(p.custom_fields) cf where lower(cf->>'value') like ${pat})`
      : sql`exists (select 1 from jsonb_array_elements(p.custom_fields) cf where cf->>'customFieldId' in (${fieldIdsNamed(subId, fieldName)}) and lower(cf->>'value') like ${pat})`
  return sql<SqlBool>`(${indexed} and ${exact})`
}

/**
 * The WHERE of one search term: each form matches one index of migrations 0006 and 0007. A
 * registry field is searched as its kind says (a kind without a case here does not compile); any
 * other field is a custom field (the parser lets nothing else through).
 */
function searchCondition(subId: string, s: ParsedSearch, filter: ListFilter): Expression<SqlBool> {
  const lowered = s.value.toLowerCase()
  const pat = likePattern(lowered, s.position)
  const field = SEARCHABLE.get(s.field)
  if (!field) {
    if (!s.field.startsWith('customFields.')) throw new Error(`no search condition for ${s.field}`)
    return customValueMatch(subId, lowered, pat, s.field.slice('customFields.'.length).toLowerCase())
  }
  // The column is the registry's (a constant), written bare as the indexes' expressions are.
  const column = sql.raw(`p.${field.column}`)
  switch (field.kind) {
    case 'trackingNumber': {
      const v = normalizeTrackingNumber(s.value)
      if (s.position === 'starts') return sql<SqlBool>`${column} like ${likePattern(v, 'starts')}`
      // reverse() turns a suffix into a prefix, which the reverse index serves.
      if (s.position === 'ends') return sql<SqlBool>`reverse(${column}) like ${likePattern(reversed(v), 'starts')}`
      return sql<SqlBool>`${column} like ${likePattern(v, 'contains')}`
    }
    // Ids are opaque: a default (contains) search is an exact match; starts / ends read the id
    // indexes. Ids are generated lower case, so the value is lowered and the column left bare.
    case 'opaqueId':
      if (s.position === 'starts') return sql<SqlBool>`${column} like ${likePattern(lowered, 'starts')}`
      if (s.position === 'ends')
        return sql<SqlBool>`reverse(${column}) like ${likePattern(reversed(lowered), 'starts')}`
      return sql<SqlBool>`${column} = ${lowered}`
    // Codes are stored upper case; typed in any case, with spaces or hyphens. A default (contains)
    // search is an exact match, as for ids: a code is opaque, and the exact match is an index probe.
    case 'pickupCode': {
      const v = s.value.replace(/[\s-]/g, '').toUpperCase()
      if (s.position === 'starts') return sql<SqlBool>`${column} like ${likePattern(v, 'starts')}`
      if (s.position === 'ends') return sql<SqlBool>`${column} like ${likePattern(v, 'ends')}`
      return sql<SqlBool>`${column} = ${v}`
    }
    case 'text':
      return sql<SqlBool>`lower(${column}) like ${pat}`
    case 'textOrEmpty':
      return filter.includeEmptyPackageLocation
        ? sql<SqlBool>`(lower(${column}) like ${pat} or ${column} is null or ${column} = '')`
        : sql<SqlBool>`lower(${column}) like ${pat}`
    case 'carrierName':
      return sql<SqlBool>`${column} in (${carrierIdsNamed(subId, pat)})`
    case 'contactName': {
      const ref = sql.ref(`p.${field.column}`)
      // Second tier: the same text in the contact's email, personal id or company, or in any custom-field value.
      const contacts = filter.secondTier ? contactIdsMatching(subId, pat) : contactIdsNamed(subId, pat)
      if (!filter.secondTier) return sql<SqlBool>`${ref} in (${contacts})`
      // = any(array(…)): the contacts are read once, and the OR becomes a BitmapOr of two package
      // indexes (an IN subquery under an OR can only be checked row by row).
      return sql<SqlBool>`(${ref} = any(array(${contacts})) or ${customValueMatch(subId, lowered, pat)})`
    }
    // A flag is one word of a vocabulary: matched whole, any case, `signature required` as SIGNATURE_REQUIRED.
    // `<> '{}'` lets the planner use packages_flags_idx, which holds the flagged packages only.
    case 'flag': {
      const flag = s.value
        .trim()
        .toUpperCase()
        .replace(/[\s-]+/g, '_')
      return sql<SqlBool>`(${column} <> '{}' and ${column} @> array[${flag}]::text[])`
    }
    default:
      return unhandled(field.kind)
  }
}

function filtered(db: Executor, subId: string, f: ListFilter) {
  let q = db.selectFrom('packages as p').where('p.sub_id', '=', subId)
  if (f.search) q = q.where(searchCondition(subId, f.search, f))
  if (f.statuses) q = q.where('p.current_status', 'in', statusList(f.statuses))
  if (f.siteId) q = q.where('p.site_id', 'in', siteIdsUnder(db, subId, f.siteId))
  // "created or updated in range": either timestamp falls inside it.
  if (f.startDate || f.endDate) {
    const { startDate: start, endDate: end } = f
    q = q.where((eb) => {
      const within = (col: 'p.created_at' | 'p.updated_at') =>
        eb.and([...(start ? [eb(col, '>=', start)] : []), ...(end ? [eb(col, '<=', end)] : [])])
      return eb.or([within('p.created_at'), within('p.updated_at')])
    })
  }
  return q
}

/** The exact number of matches by counting them: the same WHERE as the page, so it reads the same index. */
export function countQuery(db: Executor, subId: string, f: ListFilter) {
  return filtered(db, subId, f).select((eb) => eb.fn.countAll<number>().as('n'))
}

/** The query that answers a filter's total: from the tallies where they hold it, else by counting. */
export function matchCountQuery(db: Executor, subId: string, f: ListFilter): CompiledQuery<{ n: string | number }> {
  return tallyCountQuery(db, subId, f)?.compile(db) ?? countQuery(db, subId, f).compile()
}

/**
 * Every order is (sort key, package_id), both in the requested direction, with rows whose key is
 * null last in either direction. A nullable key is read in two phases (the rows with a key, then
 * the rows without one, by id) so that each phase is one range of one index: migration 0007 gives
 * every key an index ending in package_id. JSON pages and CSV batches use the same phases, so they
 * return the same rows in the same order.
 */
interface Phase {
  /** The sort key; null for the phase of rows without one, ordered by package_id alone. */
  key: RawBuilder<unknown> | null
  where?: RawBuilder<SqlBool>
  /**
   * A contact's name: the contacts of this column walked in name order (contacts_name_sort_idx), joined as `r`.
   * The one place search names another domain's table: a sort by recipient is a walk of that index
   * joined to the packages, which no composed subquery can give (every filter comes from its owner).
   */
  joinReceiver?: FieldColumn
}

/** The phases of a sort, as its registry kind says (a kind without a case here does not compile). */
function phasesOf({ column, kind }: FieldSort): Phase[] {
  const key = sql.raw(`p.${column}`)
  switch (kind) {
    case 'key':
      return [{ key }]
    case 'nullableKey':
      return [
        { key, where: sql<SqlBool>`${key} is not null` },
        { key: null, where: sql<SqlBool>`${key} is null` },
      ]
    case 'contactName':
      return [
        { key: sql`lower(r.name)`, joinReceiver: column },
        { key: null, where: sql<SqlBool>`${key} is null` },
      ]
    default:
      return unhandled(kind)
  }
}
const PHASES = new Map([...SORTABLE].map(([field, sort]) => [field, phasesOf(sort)]))
const phases = (field: SortField): Phase[] => PHASES.get(field)!

/** One phase's rows in order; `after` continues from a row's (key, id) as export batches do. */
function phaseQuery(
  db: Executor,
  subId: string,
  f: ListFilter,
  sort: Sort,
  phase: Phase,
  after?: { key: string | null; id: string },
) {
  const dir = sort.desc ? 'desc' : 'asc'
  const past = sort.desc ? sql`<` : sql`>`
  let q = filtered(db, subId, f)
    .$if(phase.joinReceiver !== undefined, (qb) =>
      qb
        .innerJoin('contacts as r', 'r.contact_id', `p.${phase.joinReceiver as 'receiver_id'}`)
        .where('r.sub_id', '=', subId),
    )
    .$if(phase.where !== undefined, (qb) => qb.where(phase.where!))
  if (after && phase.key) {
    q = q.where(sql<SqlBool>`(${phase.key}, p.package_id) ${past} (${after.key}, ${after.id})`)
    // The key alone, so the walk over the contacts' name index starts at the right place.
    if (phase.joinReceiver) q = q.where(sql<SqlBool>`${phase.key} ${past}= ${after.key}`)
  } else if (after) {
    q = q.where(sql<SqlBool>`p.package_id ${past} ${after.id}`)
  }
  if (phase.key) q = q.orderBy(phase.key, dir)
  return q.orderBy('p.package_id', dir)
}

/** The page's ids in order, compiled; also run under EXPLAIN by bench/explain-search.ts and its test. */
export function pageQuery(
  db: Executor,
  subId: string,
  f: ListFilter,
  sort: Sort,
  offset: number,
  limit: number,
): CompiledQuery<{ package_id: string }> {
  const [first, second] = phases(sort.field)
  if (!second)
    return phaseQuery(db, subId, f, sort, first!).select('p.package_id').offset(offset).limit(limit).compile()
  // Two phases: each gives its first offset + limit rows in its own index order; the page is cut
  // from the rows of the first phase followed by those of the second.
  const dir = sort.desc ? sql`desc` : sql`asc`
  const a = phaseQuery(db, subId, f, sort, first!)
    .select(['p.package_id', sql<number>`0`.as('phase'), first!.key!.as('k')])
    .limit(offset + limit)
  const b = phaseQuery(db, subId, f, sort, second)
    .select(['p.package_id', sql<number>`1`.as('phase'), sql`null`.as('k')])
    .limit(offset + limit)
  return sql<{
    package_id: string
  }>`select u.package_id from (${a} union all ${b}) u order by u.phase, u.k ${dir}, u.package_id ${dir} offset ${offset} limit ${limit}`.compile(
    db,
  )
}

/** The ids of one page of matches, in the sort's order. */
export async function searchIds(
  db: Executor,
  subId: string,
  f: ListFilter,
  sort: Sort,
  offset: number,
  limit: number,
): Promise<string[]> {
  const { rows } = await db.executeQuery(pageQuery(db, subId, f, sort, offset, limit))
  return rows.map((r) => r.package_id)
}

/** How many packages match, exactly. */
export async function countMatches(db: Executor, subId: string, f: ListFilter): Promise<number> {
  const { rows } = await db.executeQuery(matchCountQuery(db, subId, f))
  return Number(rows[0]!.n)
}

/**
 * Keyset batches of whole package rows, over every matching row in the page order, for exports of
 * any size in bounded memory: each batch continues after the (key, id) of the previous batch's last
 * row, so each is one index range whatever its depth.
 */
export async function* searchAllRows(
  db: Executor,
  subId: string,
  f: ListFilter,
  sort: Sort,
  batch = 1000,
  columns?: readonly (keyof PackageRow)[],
): AsyncGenerator<PackageRow[]> {
  // Only the columns asked for, when some are (an export of a few columns parses a fraction of
  // each row); those rows hold just those columns and package_id.
  const wanted = columns && [...new Set(['package_id', ...columns])].map((c) => sql.ref<unknown>(`p.${c}`).as(c))
  for (const phase of phases(sort.field)) {
    let after: { key: string | null; id: string } | undefined
    for (;;) {
      // The key travels as text so a timestamp keeps its microseconds across the round trip.
      const q = phaseQuery(db, subId, f, sort, phase, after)
      const sortKey = sql<string | null>`${phase.key ? sql`(${phase.key})::text` : sql`null`}`.as('sort_key')
      const rows = (
        wanted
          ? await q
              .select([...wanted, sortKey])
              .limit(batch)
              .execute()
          : await q.selectAll('p').select(sortKey).limit(batch).execute()
      ) as Array<PackageRow & { sort_key: string | null }>
      if (rows.length === 0) break
      yield rows
      if (rows.length < batch) break
      const last = rows[rows.length - 1]!
      after = { key: last.sort_key, id: last.package_id }
    }
  }
}

/** The ids alone, batch by batch (searchAllRows). */
export async function* searchAll(
  db: Executor,
  subId: string,
  f: ListFilter,
  sort: Sort,
  batch = 1000,
): AsyncGenerator<string[]> {
  for await (const rows of searchAllRows(db, subId, f, sort, batch)) yield rows.map((r) => r.package_id)
}
