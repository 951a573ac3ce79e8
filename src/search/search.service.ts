import { stringify } from 'csv-stringify'
import { Readable } from 'node:stream'
import type { Db } from '../db/database.js'
import { loadJoined } from '../packages/packages.read.js'
import { toRecord } from '../packages/packages.record.js'
import type { PackageRecord } from '../packages/packages.schemas.js'
import { checkMapping, csvCell, project, valueAt, type Cell, type Column } from './search.mapping.js'
import { parseDate, parseSearch, parseSort, parseStatuses, throwIfProblems, type ListFilter, type Sort } from './search.parse.js'
import * as repo from './search.repo.js'

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

function baseFilter(q: { startDate?: string; endDate?: string; status?: string }, problems: Array<{ field: string; description: string }>): ListFilter {
  const startDate = parseDate(q.startDate, 'startDate', problems)
  const endDate = parseDate(q.endDate, 'endDate', problems, true)
  if (startDate && endDate && startDate > endDate) problems.push({ field: 'endDate', description: 'endDate is before startDate.' })
  return { secondTier: false, includeEmptyPackageLocation: false, statuses: parseStatuses(q.status, problems), startDate, endDate }
}

export type SearchService = ReturnType<typeof createSearchService>

export function createSearchService(deps: { db: Db }) {
  const { db } = deps

  async function records(subId: string, ids: string[]): Promise<PackageRecord[]> {
    if (ids.length === 0) return []
    const joined = await loadJoined(db, subId, { packageIds: ids })
    return joined.rows.map((r) => toRecord(joined.ctx, r))
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
    async list(subId: string, q: ListQuery): Promise<{ packages: PackageRecord[]; totalCount: number; capped: boolean }> {
      const problems: Array<{ field: string; description: string }> = []
      const filter = baseFilter(q, problems)
      filter.search = parseSearch(q.search, q.searchPosition ?? 'contains', problems)
      filter.secondTier = q.secondTierSearchSelected ?? false
      filter.includeEmptyPackageLocation = q.includeEmptyPackageLocation ?? false
      filter.siteId = q.location
      const sort = parseSort(q.sort, problems)
      throwIfProblems(problems)
      const size = q.size ?? DEFAULT_PAGE_SIZE
      const { ids, total, capped } = await repo.searchPage(db, subId, filter, sort, ((q.page ?? 1) - 1) * size, size)
      return { packages: await records(subId, ids), totalCount: total, capped }
    },

    /** Rows of the mapping (or full records for `{}`), one page. */
    async custom(subId: string, q: CustomQuery, mapping: Record<string, unknown>): Promise<{ packages: Array<Record<string, Cell> | PackageRecord>; totalCount: number; capped: boolean }> {
      const columns = checkMapping(mapping)
      const { filter, sort } = customFilter(q)
      const size = q.size ?? DEFAULT_PAGE_SIZE
      const { ids, total, capped } = await repo.searchPage(db, subId, filter, sort, ((q.page ?? 1) - 1) * size, size)
      const recs = await records(subId, ids)
      return { packages: columns.length ? recs.map((r) => project(r, columns)) : recs, totalCount: total, capped }
    },

    /**
     * The same rows as CSV (RFC 4180, labels as header), streamed in keyset batches so memory
     * stays flat however many rows match. Every matching row unless page or size is given. An
     * empty mapping exports every top-level scalar field under its own name.
     */
    exportCsv(subId: string, q: CustomQuery, mapping: Record<string, unknown>): Readable {
      let columns: Column[] = checkMapping(mapping)
      const { filter, sort } = customFilter(q)
      if (columns.length === 0) columns = FULL_COLUMNS
      const paged = q.page !== undefined || q.size !== undefined
      const size = q.size ?? DEFAULT_PAGE_SIZE
      async function* rows(): AsyncGenerator<string[]> {
        yield columns.map((c) => c.label)
        if (paged) {
          const page = await repo.searchPage(db, subId, filter, sort, ((q.page ?? 1) - 1) * size, size)
          for (const r of await records(subId, page.ids)) yield columns.map((c) => csvCell(valueAt(r, c.path)))
          return
        }
        for await (const batch of repo.searchAll(db, subId, filter, sort)) {
          for (const r of await records(subId, batch.map((b) => b.package_id))) yield columns.map((c) => csvCell(valueAt(r, c.path)))
        }
      }
      return Readable.from(rows()).pipe(stringify({ record_delimiter: '\r\n' }))
    },
  }
}

const FULL_COLUMNS: Column[] = [
  'packageId', 'trackingNumber', 'assetType', 'carrier.name', 'currentStatus', 'damaged', 'archived', 'receiver.name', 'receiver.email', 'sender.name',
  'givenTo.name', 'comment', 'currentLocation.locationHierarchy', 'packageLocation', 'lockerBank', 'lockerUnit', 'userName', 'receiveClerk',
  'deliveryClerk', 'deliveryTime', 'locationZip', 'insertTimestamp', 'updateTimestamp', 'version',
].map((path) => ({ path, label: path }))
