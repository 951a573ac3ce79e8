import type { Cell } from '../../packages/index.js'
import type { TSchema } from '@sinclair/typebox'
import { PackageRecordSchema, type PackageRecord } from '../../packages/index.js'
import { SiteRefSchema } from '../../sites/index.js'
import { ValidationErrors } from '../../platform/kit/errors.js'

/**
 * Custom search (POST /api/v1/packages/search): a body mapping package-record paths to column
 * labels. The mappable paths are derived from the record's own schema, so the two never drift:
 * every field, dot paths into objects (`receiver.location.locationHierarchy`), and
 * `customFields.<name>` for one custom field's value.
 */
function collect(schema: TSchema, prefix: string, out: Set<string>): void {
  const resolved = schema.$ref === 'SiteRef' ? SiteRefSchema : schema
  if (prefix) out.add(prefix)
  if (resolved.type === 'object' && resolved.properties) {
    for (const [k, v] of Object.entries(resolved.properties as Record<string, TSchema>))
      collect(v, prefix ? `${prefix}.${k}` : k, out)
  }
  for (const member of (resolved.anyOf as TSchema[] | undefined) ?? []) collect(member, prefix, out)
}

const PATHS: ReadonlySet<string> = (() => {
  const out = new Set<string>()
  collect(PackageRecordSchema, '', out)
  return out
})()

export function isMappable(path: string): boolean {
  return PATHS.has(path) || /^customFields\.[^.].{0,99}$/.test(path)
}

export interface Column {
  path: string
  label: string
}

/** The mapping in body order; unknown paths and duplicate labels are a 400 naming them. */
export function checkMapping(body: Record<string, unknown>): Column[] {
  const problems: Array<{ field: string; description: string }> = []
  const seen = new Map<string, string>()
  const columns: Column[] = []
  for (const [path, label] of Object.entries(body)) {
    if (!isMappable(path)) problems.push({ field: path, description: `${path} is not a field of the package record.` })
    if (typeof label !== 'string' || label.trim() === '' || label.length > 200) {
      problems.push({
        field: path,
        description: `The label of ${path} must be a non-empty string of at most 200 characters.`,
      })
      continue
    }
    const first = seen.get(label)
    if (first !== undefined)
      problems.push({ field: path, description: `The label "${label}" is already used for ${first}.` })
    seen.set(label, path)
    columns.push({ path, label })
  }
  if (problems.length) throw new ValidationErrors(problems)
  return columns
}

/** A cell of a mapped row or a CSV line (the registry's type: its direct cells give these). */
export type { Cell }

export function valueAt(record: PackageRecord, path: string): Cell {
  if (path.startsWith('customFields.') && !PATHS.has(path)) {
    const name = path.slice('customFields.'.length).toLowerCase()
    return record.customFields.find((c) => c.name.toLowerCase() === name)?.value ?? ''
  }
  let v: unknown = record
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object') return ''
    v = (v as Record<string, unknown>)[key]
  }
  return v === undefined || v === null ? '' : (v as Cell)
}

/** One row as cells in the mapping's order. */
export function project(record: PackageRecord, columns: Column[]): Cell[] {
  return columns.map((c) => valueAt(record, c.path))
}

/**
 * The JSON body of a mapped page, written here rather than by the response schema: a JS object
 * puts integer-like keys ("1", "2") before the others whatever the insertion order, and the rows
 * must keep the mapping's order. Labels and values are JSON-encoded one by one, and every value
 * comes from the package record, so nothing outside the record's own schema can leave.
 */
export function mappedPageJson(columns: Column[], rows: Cell[][], totalCount: number): string {
  const keys = columns.map((c) => `${JSON.stringify(c.label)}:`)
  const body = rows.map((row) => `{${row.map((v, i) => `${keys[i]}${JSON.stringify(v)}`).join(',')}}`)
  return `{"packages":[${body.join(',')}],"totalCount":${totalCount}}`
}

/**
 * One CSV cell. Objects are JSON, arrays are joined with "|". A cell a spreadsheet would run as a
 * formula (starting with = + - @, tab or carriage return) gets a leading apostrophe (OWASP CSV
 * injection guidance), which spreadsheets display as text. Header labels go through it too.
 */
export function csvCell(v: Cell): string {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  // Array items are JSON values: objects (and null) go to JSON.stringify, String() sees only primitives.
  const s = Array.isArray(v)
    ? v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x as string | number | boolean))).join('|')
    : typeof v === 'object'
      ? JSON.stringify(v)
      : String(v)
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s
}
