import { ValidationErrors } from '../shared/errors.js'

/** CONTRACT §3 searchable fields (`search=field:value`), plus `customFields.<name>`. */
export const SEARCH_FIELDS = ['trackingNumber', 'packageId', 'receiver.name', 'sender.name', 'givenTo.name', 'comment', 'packageLocation', 'lockerBank', 'carrier.name'] as const
export type SearchField = (typeof SEARCH_FIELDS)[number] | `customFields.${string}`

export const SORT_FIELDS = ['insertTimestamp', 'updateTimestamp', 'trackingNumber', 'currentStatus', 'receiver.name', 'deliveryTime'] as const
export type SortField = (typeof SORT_FIELDS)[number]

export const FILTER_STATUSES = ['RECEIVED', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'READY_FOR_PICKUP', 'IN_LOCKER', 'DELIVERED', 'PICKED_UP', 'DAMAGED', 'RETURNED_TO_SENDER', 'ARCHIVED'] as const
/** UNDELIVERED = any status but these (CONTRACT §3). */
const DONE = new Set(['DELIVERED', 'PICKED_UP', 'RETURNED_TO_SENDER', 'ARCHIVED'])

/** Shortest value a `contains` search accepts: trigram indexes need three characters to help. */
export const MIN_CONTAINS_LENGTH = 3

export interface ParsedSearch {
  field: SearchField
  value: string
  position: 'contains' | 'starts' | 'ends'
}

export interface ListFilter {
  search?: ParsedSearch
  secondTier: boolean
  includeEmptyPackageLocation: boolean
  statuses?: string[]
  siteId?: string
  startDate?: Date
  endDate?: Date
}

export interface Sort {
  field: SortField
  desc: boolean
}

type Problem = { field: string; description: string }

export function parseSearch(raw: string, position: 'contains' | 'starts' | 'ends', problems: Problem[]): ParsedSearch | undefined {
  const colon = raw.indexOf(':')
  if (colon <= 0) {
    problems.push({ field: 'search', description: 'search must be field:value, e.g. trackingNumber:1Z99' })
    return undefined
  }
  const field = raw.slice(0, colon)
  const value = raw.slice(colon + 1).trim()
  const known = (SEARCH_FIELDS as readonly string[]).includes(field) || (/^customFields\.[^:]{1,100}$/.test(field))
  if (!known) {
    problems.push({ field: 'search', description: `Cannot search on ${field}; searchable: ${SEARCH_FIELDS.join(', ')}, customFields.<name>.` })
    return undefined
  }
  if (value === '') {
    problems.push({ field: 'search', description: 'The search value is empty.' })
    return undefined
  }
  if (position === 'contains' && value.length < MIN_CONTAINS_LENGTH && field !== 'packageId') {
    problems.push({ field: 'search', description: `A contains search needs at least ${MIN_CONTAINS_LENGTH} characters; use searchPosition=starts for shorter values.` })
    return undefined
  }
  return { field: field as SearchField, value, position }
}

export function parseStatuses(raw: string | undefined, problems: Problem[]): string[] | undefined {
  if (raw === undefined) return undefined
  const wanted = raw.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean)
  const out = new Set<string>()
  for (const s of wanted) {
    if (s === 'UNDELIVERED') for (const st of FILTER_STATUSES) if (!DONE.has(st)) out.add(st)
    if ((FILTER_STATUSES as readonly string[]).includes(s)) out.add(s)
    else if (s !== 'UNDELIVERED') problems.push({ field: 'status', description: `Unknown status ${s}; one of ${FILTER_STATUSES.join(', ')}, UNDELIVERED.` })
  }
  if (wanted.length === 0) problems.push({ field: 'status', description: 'status is empty.' })
  return [...out]
}

export function parseSort(raw: string | undefined, problems: Problem[]): Sort {
  if (raw === undefined) return { field: 'insertTimestamp', desc: true }
  const m = /^([A-Za-z.]+)(?:,(ASC|DESC))?$/i.exec(raw.trim())
  if (!m || !(SORT_FIELDS as readonly string[]).includes(m[1]!)) {
    problems.push({ field: 'sort', description: `sort must be field,ASC|DESC with field one of ${SORT_FIELDS.join(', ')}.` })
    return { field: 'insertTimestamp', desc: true }
  }
  return { field: m[1] as SortField, desc: (m[2] ?? 'ASC').toUpperCase() === 'DESC' }
}

export function parseDate(raw: string | undefined, field: string, problems: Problem[], endOfDay = false): Date | undefined {
  if (raw === undefined) return undefined
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(raw)
  const d = new Date(dateOnly && endOfDay ? `${raw}T23:59:59.999Z` : raw)
  if (Number.isNaN(d.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(raw) || d.getUTCFullYear() < 1900 || d.getUTCFullYear() > 9999) {
    problems.push({ field, description: `${field} must be an ISO 8601 date or time.` })
    return undefined
  }
  return d
}

export function throwIfProblems(problems: Problem[]): void {
  if (problems.length) throw new ValidationErrors(problems)
}
