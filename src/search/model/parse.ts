import type { FieldSpec, SearchKind, SortKind } from '../../packages/index.js'
import { FIELD_ENTRIES, type FieldColumn, type SearchableField, type SortableField } from '../../packages/index.js'
import { FINISHED, PACKAGE_STATUSES } from '../../packages/index.js'
import { ValidationErrors } from '../../platform/kit/errors.js'

/** A registry field's search or sort spec, as the conditions read it. */
export interface FieldSearch {
  column: FieldColumn
  kind: SearchKind
  tally?: 'receiver' | 'sender' | 'given_to'
}
export interface FieldSort {
  column: FieldColumn
  kind: SortKind
}

/** The registry's fields that have `capability`, by their API path, in their listed order (fields.ts). */
function listed<S extends { order: number; field?: string }>(
  capability: (f: FieldSpec) => S | undefined,
): Array<[string, S, FieldSpec]> {
  return FIELD_ENTRIES.flatMap(([name, f]) => {
    const spec = capability(f)
    return spec ? [[spec.field ?? name, spec, f] as [string, S, FieldSpec]] : []
  }).sort(([, a], [, b]) => a.order - b.order)
}
const columnOf = (f: FieldSpec): FieldColumn => f.column as FieldColumn

/** CONTRACT §3 searchable fields (`search=field:value`), plus `customFields.<name>`: those of the registry with a search kind. */
export const SEARCHABLE: ReadonlyMap<string, FieldSearch> = new Map(
  listed((f) => f.search).map(([field, s, f]) => [field, { column: columnOf(f), kind: s.kind, tally: s.tally }]),
)
export const SEARCH_FIELDS = [...SEARCHABLE.keys()] as readonly SearchableField[]
export type SearchField = SearchableField | `customFields.${string}`

export const SORTABLE: ReadonlyMap<string, FieldSort> = new Map(
  listed((f) => f.sort).map(([field, s, f]) => [field, { column: columnOf(f), kind: s.kind }]),
)
export const SORT_FIELDS = [...SORTABLE.keys()] as readonly SortableField[]
export type SortField = SortableField

export const FILTER_STATUSES = PACKAGE_STATUSES
/** UNDELIVERED = any status but these (CONTRACT §3). */
const DONE: ReadonlySet<string> = new Set(FINISHED)

/** Kinds whose default search is an exact match: no length floor. */
const EXACT_KINDS: ReadonlySet<SearchKind | undefined> = new Set(['opaqueId', 'pickupCode'])

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

export function parseSearch(
  raw: string,
  position: 'contains' | 'starts' | 'ends',
  problems: Problem[],
): ParsedSearch | undefined {
  const colon = raw.indexOf(':')
  if (colon <= 0) {
    problems.push({ field: 'search', description: 'search must be field:value, e.g. trackingNumber:1Z99' })
    return undefined
  }
  const field = raw.slice(0, colon)
  const value = raw.slice(colon + 1).trim()
  const known = SEARCHABLE.has(field) || /^customFields\.[^:]{1,100}$/.test(field)
  if (!known) {
    problems.push({
      field: 'search',
      description: `Cannot search on ${field}; searchable: ${SEARCH_FIELDS.join(', ')}, customFields.<name>.`,
    })
    return undefined
  }
  if (value === '') {
    problems.push({ field: 'search', description: 'The search value is empty.' })
    return undefined
  }
  if (position === 'contains' && value.length < MIN_CONTAINS_LENGTH && !EXACT_KINDS.has(SEARCHABLE.get(field)?.kind)) {
    problems.push({
      field: 'search',
      description: `A contains search needs at least ${MIN_CONTAINS_LENGTH} characters; use searchPosition=starts for shorter values.`,
    })
    return undefined
  }
  return { field: field as SearchField, value, position }
}

export function parseStatuses(raw: string | undefined, problems: Problem[]): string[] | undefined {
  if (raw === undefined) return undefined
  const wanted = raw
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean)
  const out = new Set<string>()
  for (const s of wanted) {
    if (s === 'UNDELIVERED') for (const st of FILTER_STATUSES) if (!DONE.has(st)) out.add(st)
    if ((FILTER_STATUSES as readonly string[]).includes(s)) out.add(s)
    else if (s !== 'UNDELIVERED')
      problems.push({
        field: 'status',
        description: `Unknown status ${s}; one of ${FILTER_STATUSES.join(', ')}, UNDELIVERED.`,
      })
  }
  if (wanted.length === 0) problems.push({ field: 'status', description: 'status is empty.' })
  return [...out]
}

export function parseSort(raw: string | undefined, problems: Problem[]): Sort {
  if (raw === undefined) return { field: 'insertTimestamp', desc: true }
  const m = /^([A-Za-z.]+)(?:,(ASC|DESC))?$/i.exec(raw.trim())
  if (!m || !SORTABLE.has(m[1]!)) {
    problems.push({
      field: 'sort',
      description: `sort must be field,ASC|DESC with field one of ${SORT_FIELDS.join(', ')}.`,
    })
    return { field: 'insertTimestamp', desc: true }
  }
  return { field: m[1] as SortField, desc: (m[2] ?? 'ASC').toUpperCase() === 'DESC' }
}

export function parseDate(
  raw: string | undefined,
  field: string,
  problems: Problem[],
  endOfDay = false,
): Date | undefined {
  if (raw === undefined) return undefined
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(raw)
  const d = new Date(dateOnly && endOfDay ? `${raw}T23:59:59.999Z` : raw)
  if (
    Number.isNaN(d.getTime()) ||
    !/^\d{4}-\d{2}-\d{2}/.test(raw) ||
    d.getUTCFullYear() < 1900 ||
    d.getUTCFullYear() > 9999
  ) {
    problems.push({ field, description: `${field} must be an ISO 8601 date or time.` })
    return undefined
  }
  return d
}

export function throwIfProblems(problems: Problem[]): void {
  if (problems.length) throw new ValidationErrors(problems)
}
