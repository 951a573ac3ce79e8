import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import { normalizeTrackingNumber, PRINTABLE_ASCII, reversed } from '../../packages/index.js'
import type { ListFilter, Sort } from '../model/parse.js'

/** A tracking-number lookup as a clerk types it: the first page of a starts / ends search, newest first, nothing else. */
export interface TrackingLookup {
  position: 'starts' | 'ends'
  /** Normalised (normalizeTrackingNumber), printable ASCII: see asTrackingLookup. */
  value: string
  limit: number
}

/**
 * The filter, sort and page of a tracking-number lookup, when they are one: a starts / ends
 * search on trackingNumber and nothing else, newest first, first page, a printable value.
 */
export function asTrackingLookup(f: ListFilter, sort: Sort, offset: number, limit: number): TrackingLookup | undefined {
  const s = f.search
  if (!s || s.field !== 'trackingNumber' || s.position === 'contains' || offset !== 0) return undefined
  if (f.statuses || f.siteId || f.startDate || f.endDate || sort.field !== 'insertTimestamp' || !sort.desc)
    return undefined
  const value = normalizeTrackingNumber(s.value)
  return PRINTABLE_ASCII.test(value) ? { position: s.position, value, limit } : undefined
}

/**
 * Past this many matches (or the page size, if larger) a lookup is left to the page query, which
 * can walk the newest-first index instead of reading and ordering every match.
 */
export const LOOKUP_MAX_MATCHES = 100
const boundFor = (limit: number) => Math.max(LOOKUP_MAX_MATCHES, limit)

/**
 * The first pages of several tracking-number lookups of one position and size, in one statement:
 * concurrent clerks' lookups share a round trip and a plan (most of such a lookup's cost is
 * planning it, not running it). Each value's prefix (of the number, or of the reversed number
 * for `ends`) is a range of the prefix or suffix index, `[prefix, prefix with its last character
 * one higher)`: for printable ASCII under byte order, exactly the strings that start with it,
 * as `like 'prefix%'` would match. Each value reads at most `bound` + 1 index entries
 * (the range is read whole, then ordered newest first): a value with more matches (a carrier's
 * prefix alone) answers undefined, for the page query to answer. The page of each value, in
 * page order, by value.
 */
export async function trackingLookupPages(
  db: Executor,
  subId: string,
  position: TrackingLookup['position'],
  limit: number,
  values: string[],
): Promise<Map<string, string[] | undefined>> {
  const bound = boundFor(limit)
  const { rows } = await trackingLookupQuery(subId, position, limit, values).execute(db)
  const pages = new Map<string, string[] | undefined>(values.map((v) => [v, []]))
  for (const r of rows) {
    if (r.matches > bound) pages.set(r.v, undefined)
    else if (r.package_id !== null) pages.get(r.v)!.push(r.package_id)
  }
  return pages
}

/** The statement of trackingLookupPages (bench/explain-search.ts checks its plan). */
export function trackingLookupQuery(
  subId: string,
  position: TrackingLookup['position'],
  limit: number,
  values: string[],
) {
  const prefixes = values.map((v) => (position === 'ends' ? reversed(v) : v))
  const above = prefixes.map((p) => p.slice(0, -1) + String.fromCharCode(p.charCodeAt(p.length - 1) + 1))
  const key = position === 'ends' ? sql`reverse(p.tracking_number)` : sql`p.tracking_number`
  const bound = boundFor(limit)
  return sql<{ v: string; package_id: string | null; matches: number }>`
    select q.v, l.package_id, coalesce(l.matches, 0)::int as matches
      from unnest(${values}::text[], ${prefixes}::text[], ${above}::text[]) as q(v, lo, hi)
      left join lateral (
        -- The range alone, bounded, fenced (offset 0) from the ordering: a walk of the
        -- newest-first index, which a generic plan's guess of thousands of matches could prefer,
        -- would read a whole subscription for a number that matches once.
        select m.package_id, m.created_at, count(*) over () as matches from (
          select p.package_id, p.created_at from packages p
           where p.sub_id = ${subId} and ${key} ~>=~ q.lo and ${key} ~<~ q.hi
           limit ${bound + 1} offset 0
        ) m
         order by m.created_at desc, m.package_id desc
         limit ${limit}
      ) l on true
     order by q.v, l.created_at desc, l.package_id desc`
}
