import type { Readable } from 'node:stream'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Db } from '../platform/db/database.js'
import type { PackageRecord } from '../packages/index.js'
import { csvStream, type ExportLog } from './model/csv.js'
import { checkMapping, csvCell, project, valueAt, type Cell, type Column } from './model/mapping.js'
import {
  parseDate,
  parseSearch,
  parseSort,
  parseStatuses,
  throwIfProblems,
  type ListFilter,
  type Sort,
} from './model/parse.js'
import { exportCells, exportRows, FULL_COLUMNS } from './model/export.js'
import { batchPerSubscription } from '../platform/kit/batch.js'
import * as lookups from './store/lookup.js'
import * as repo from './store/search.js'

export interface ListQuery {
  search: string
  searchPosition?: 'starts' | 'ends'
  startDate?: string
  endDate?: string
  page?: number
  size?: number
  status?: string
  location?: string
  sort?: string
  secondTierSearchSelected?: boolean
  includeEmptyPackageLocation?: boolean
}

export interface CustomQuery {
  startDate?: string
  endDate?: string
  page?: number
  size?: number
  status?: string
  sort?: string
  inboundSiteId?: string
}

export const DEFAULT_PAGE_SIZE = 25

function baseFilter(
  q: { startDate?: string; endDate?: string; status?: string },
  problems: Array<{ field: string; description: string }>,
): ListFilter {
  const startDate = parseDate(q.startDate, 'startDate', problems)
  const endDate = parseDate(q.endDate, 'endDate', problems, true)
  if (startDate && endDate && startDate > endDate)
    problems.push({ field: 'endDate', description: 'endDate is before startDate.' })
  return {
    secondTier: false,
    includeEmptyPackageLocation: false,
    statuses: parseStatuses(q.status, problems),
    startDate,
    endDate,
  }
}

export type SearchService = ReturnType<typeof createSearchService>

/** A page of a custom search: full records for `{}`, else the mapping's columns and one row of cells per package. */
export type CustomPage =
  { packages: PackageRecord[]; totalCount: number } | { columns: Column[]; rows: Cell[][]; totalCount: number }

export interface SearchDeps {
  db: Db
  /** The DETAILED records of these packages, in this order (the packages domain renders them). */
  records: (subId: string, packageIds: string[]) => Promise<PackageRecord[]>
  exportBatchSize?: number
}

export function createSearchService(deps: SearchDeps) {
  const { db, records } = deps
  const exportBatchSize = deps.exportBatchSize ?? 1000

  /**
   * Tracking-number lookups (a clerk typing the first or last characters of a number) of
   * concurrent requests, gathered into one statement per subscription, position and page size
   * (see batchPerSubscription and trackingLookupPages). Keys are [position, limit, value] as JSON.
   */
  const trackingLookup = batchPerSubscription<string[] | undefined>(async (subId, keys) => {
    const groups = new Map<string, { position: 'starts' | 'ends'; limit: number; values: string[] }>()
    for (const key of keys) {
      const [position, limit, value] = JSON.parse(key) as ['starts' | 'ends', number, string]
      const group = `${position} ${limit}`
      if (!groups.has(group)) groups.set(group, { position, limit, values: [] })
      groups.get(group)!.values.push(value)
    }
    const out = new Map<string, string[] | undefined>()
    await Promise.all(
      [...groups.values()].map(async (g) => {
        for (const [value, ids] of await lookups.trackingLookupPages(db, subId, g.position, g.limit, g.values))
          out.set(JSON.stringify([g.position, g.limit, value]), ids)
      }),
    )
    return out
  })

  /**
   * One page of records and the exact total. A short page that is not past the end holds the last
   * matches, so its position is the count; otherwise the count runs alongside the records' read,
   * and a page costs the slower of the two rather than their sum.
   */
  async function page(
    subId: string,
    filter: ListFilter,
    sort: Sort,
    q: { page?: number; size?: number },
  ): Promise<{ recs: PackageRecord[]; total: number }> {
    const size = q.size ?? DEFAULT_PAGE_SIZE
    const offset = ((q.page ?? 1) - 1) * size
    const lookup = lookups.asTrackingLookup(filter, sort, offset, size)
    // A lookup too common for the gathered read (undefined) goes the way of any other search.
    const ids =
      (lookup && (await trackingLookup(subId, JSON.stringify([lookup.position, lookup.limit, lookup.value])))) ??
      (await repo.searchIds(db, subId, filter, sort, offset, size))
    const lastPage = ids.length < size && (ids.length > 0 || offset === 0)
    const [recs, total] = await Promise.all([
      records(subId, ids),
      lastPage ? offset + ids.length : repo.countMatches(db, subId, filter),
    ])
    return { recs, total }
  }

  function customFilter(q: CustomQuery): { filter: ListFilter; sort: Sort } {
    const problems: Array<{ field: string; description: string }> = []
    const filter = baseFilter(q, problems)
    filter.siteId = q.inboundSiteId
    const sort = parseSort(q.sort, problems)
    throwIfProblems(problems)
    return { filter, sort }
  }

  return {
    async list(subId: string, q: ListQuery): Promise<{ packages: PackageRecord[]; totalCount: number }> {
      const problems: Array<{ field: string; description: string }> = []
      const filter = baseFilter(q, problems)
      filter.search = parseSearch(q.search, q.searchPosition ?? 'contains', problems)
      filter.secondTier = q.secondTierSearchSelected ?? false
      filter.includeEmptyPackageLocation = q.includeEmptyPackageLocation ?? false
      filter.siteId = q.location
      const sort = parseSort(q.sort, problems)
      throwIfProblems(problems)
      const { recs, total } = await page(subId, filter, sort, q)
      return { packages: recs, totalCount: total }
    },

    /** One page of the mapping's rows (or of full records for `{}`). */
    async custom(subId: string, q: CustomQuery, mapping: Record<string, unknown>): Promise<CustomPage> {
      const columns = checkMapping(mapping)
      const { filter, sort } = customFilter(q)
      const { recs, total } = await page(subId, filter, sort, q)
      return columns.length
        ? { columns, rows: recs.map((r) => project(r, columns)), totalCount: total }
        : { packages: recs, totalCount: total }
    },

    /**
     * The same rows as CSV (RFC 4180, labels as header), in the same order as the JSON pages, streamed
     * in keyset batches so memory stays flat however many rows match. Every matching row unless page
     * or size is given. An empty mapping exports the main fields under their own names. The first
     * batch is read before anything is sent, so a database that fails at once gives a 500, not a
     * truncated file. `heavyTurn`, when given, is taken for each batch (see tenant-gates.ts).
     */
    async exportCsv(
      subId: string,
      q: CustomQuery,
      mapping: Record<string, unknown>,
      log: ExportLog,
      heavyTurn?: () => Promise<() => void>,
    ): Promise<Readable> {
      let columns: Column[] = checkMapping(mapping)
      const { filter, sort } = customFilter(q)
      if (columns.length === 0) columns = FULL_COLUMNS
      const paged = q.page !== undefined || q.size !== undefined
      const size = q.size ?? DEFAULT_PAGE_SIZE
      const fromRecords = (recs: PackageRecord[]) => recs.map((r) => columns.map((c) => csvCell(valueAt(r, c.path))))
      const fromRows = exportCells(columns)
      const cellBatches = paged
        ? (async function* () {
            yield fromRecords(
              await records(subId, await repo.searchIds(db, subId, filter, sort, ((q.page ?? 1) - 1) * size, size)),
            )
          })()
        : (async function* () {
            const source = exportRows(db, subId, filter, sort, exportBatchSize, fromRows.columns)
            try {
              for (;;) {
                // Each batch's read and rendering in one heavy turn (tenant-gates.ts), released
                // before its rows are handed on: a client reading slowly must not hold a slot.
                const release = heavyTurn ? await heavyTurn() : undefined
                let cells: string[][][]
                try {
                  const next = await source.next()
                  if (next.done) return
                  const { rows, ctx } = next.value
                  cells = []
                  for (let i = 0; i < rows.length; i += EXPORT_ROWS_PER_TURN) {
                    if (i > 0) await nextTurn()
                    cells.push(rows.slice(i, i + EXPORT_ROWS_PER_TURN).map((r) => fromRows.cells(r, ctx)))
                  }
                } finally {
                  release?.()
                }
                yield* cells
              }
            } finally {
              await source.return(undefined)
            }
          })()
      const first = await cellBatches.next()
      async function* batches(): AsyncGenerator<string[][]> {
        try {
          yield [columns.map((c) => csvCell(c.label))]
          if (first.done) return
          yield first.value
          yield* cellBatches
        } finally {
          await cellBatches.return(undefined)
        }
      }
      return csvStream(batches(), log)
    },
  }
}

/**
 * Rows an export renders in one turn of the event loop. An export is CPU on the loop every request
 * of every tenant shares (a 100k-row export is seconds of it); rendering a whole database batch at
 * once held the loop ~25 ms at a time and took another tenant's GET p99 from 9 to 120 ms. A hundred
 * rows is ~2 ms, then the loop serves whatever else is waiting.
 */
const EXPORT_ROWS_PER_TURN = 100
