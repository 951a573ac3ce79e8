import { Type, type TOptional, type TSchema, type TString, type TInteger, type TBoolean } from '@sinclair/typebox'
import type { Selectable } from 'kysely'
import type { PackageTable } from '../../platform/db/tables.js'
import type { ContactLike } from './deps.js'
import type { RecordContext } from './refs.js'
import type { SiteInfo } from '../../sites/index.js'

/**
 * The vocabulary of the package field registry (fields.ts): what an entry can say, and what each
 * kind of plain column means for the record, the CSV and the event. A switch over a kind ends in
 * a `never` default, so a new kind that is not handled everywhere does not compile.
 */

export type PackageColumn = keyof PackageTable
export type PackageRow = Selectable<PackageTable>

/** How a plain column reads: its record member, its CSV cell and its event value follow from this. */
export type ValueKind = 'string' | 'text' | 'integer' | 'integerOrNull' | 'boolean' | 'instant' | 'instantOrNull'

type RecordSchemaOf<V extends ValueKind> = V extends 'string'
  ? TString
  : V extends 'text'
    ? TOptional<TString>
    : V extends 'integer'
      ? TInteger
      : V extends 'integerOrNull'
        ? TOptional<TInteger>
        : V extends 'boolean'
          ? TBoolean
          : V extends 'instant'
            ? TString
            : TOptional<TString>

function recordSchemaOf(kind: ValueKind, description?: string): TSchema {
  const d = description ? { description } : {}
  switch (kind) {
    case 'string':
      return Type.String(d)
    case 'text':
      return Type.Optional(Type.String(d))
    case 'integer':
      return Type.Integer(d)
    case 'integerOrNull':
      return Type.Optional(Type.Integer(d))
    case 'boolean':
      return Type.Boolean(d)
    case 'instant':
      return Type.String({ format: 'date-time', ...d })
    case 'instantOrNull':
      return Type.Optional(Type.String({ format: 'date-time', ...d }))
    default:
      return unhandled(kind)
  }
}

/** How the record reads a plain column (undefined: the member is absent); the kind is looked at once, not per row. */
export function plainReader(kind: ValueKind, column: PackageColumn): (r: PackageRow) => unknown {
  switch (kind) {
    case 'string':
    case 'integer':
    case 'boolean':
      return (r) => r[column]
    case 'text':
    case 'integerOrNull':
      return (r) => r[column] ?? undefined
    case 'instant':
      return (r) => (r[column] as Date).toISOString()
    case 'instantOrNull':
      return (r) => (r[column] as Date | null | undefined)?.toISOString()
    default:
      return unhandled(kind)
  }
}

/** The CSV cell of a plain column: the record's value, '' when absent. */
export function plainCell(kind: ValueKind, column: PackageColumn): DirectCell {
  const cell = ((): ((v: unknown) => Cell) => {
    switch (kind) {
      case 'string':
      case 'integer':
      case 'boolean':
        return (v) => v as Cell
      case 'text':
      case 'integerOrNull':
        return (v) => (v ?? '') as Cell
      case 'instant':
        return (v) => (v as Date).toISOString()
      case 'instantOrNull':
        return (v) => (v as Date | null | undefined)?.toISOString() ?? ''
      default:
        return unhandled(kind)
    }
  })()
  return { columns: [column], cell: (r) => cell(r[column]) }
}

export function unhandled(x: never): never {
  throw new Error(`unhandled kind ${String(x)}`)
}

export type Cell = string | number | boolean | Record<string, unknown> | unknown[]

/** A CSV cell read straight from the row, without rendering the record: the columns it reads, and how. */
export interface DirectCell {
  columns: readonly PackageColumn[]
  cell(r: PackageRow, ctx: RecordContext): Cell
}

/** What an event's data is computed from: the package's columns after the change, and the references it names. */
export interface EventSource {
  row: Partial<PackageRow> & Pick<PackageRow, 'package_id' | 'tracking_number' | 'current_status'>
  site: SiteInfo | undefined
  receiver: ContactLike | undefined
  carrier: { carrierId: string; name: string } | undefined
}

/**
 * How a field is searched (`search=field:value`). Each kind has its condition in search/store/search.ts
 * (an exhaustive switch): a searchable field whose kind has no condition does not compile.
 */
export type SearchKind =
  'trackingNumber' | 'opaqueId' | 'pickupCode' | 'text' | 'textOrEmpty' | 'carrierName' | 'contactName' | 'flag'
/** How a field is sorted; each kind has its phases in search/store/search.ts. */
export type SortKind = 'key' | 'nullableKey' | 'contactName'

/**
 * Who writes a column: `add` only at the add; `change` at the add and by any later change (the
 * columns an update statement sets).
 */
export type WrittenBy = 'add' | 'change'

/**
 * One package field. Listing positions (`order`, `csv`) are API (error messages, the documented
 * lists, the default export's columns): old fields keep theirs, a new one takes the next.
 */
export interface FieldSpec {
  /** The column it is stored in; none for a value computed from others. */
  column?: PackageColumn
  writtenBy?: WrittenBy
  /** A plain column: record member, CSV cell and event value follow from it. */
  value?: ValueKind
  /** The member of the Package record. */
  record: TSchema
  /** The record's value, for a field that is not plain. */
  read?: (r: PackageRow, ctx: RecordContext) => unknown
  /**
   * The member of `package` in Add and Update. `replace`: given replaces, `null` clears, absent
   * keeps (done for every such field at once); `own`: the rules of packages/model/rules.ts name it.
   */
  input?: { name?: string; order: number; rule: 'replace' | 'own'; schema: TSchema }
  search?: { kind: SearchKind; order: number; field?: string; tally?: 'receiver' | 'sender' | 'given_to' }
  sort?: { kind: SortKind; order: number; field?: string }
  /** Its position among the default CSV export's columns, or those of its paths. */
  csv?: number | Readonly<Record<string, number>>
  /** CSV cells read straight from the row, by path, for a field that is not plain. */
  cells?: Readonly<Record<string, DirectCell>>
  /** In the event data: `true` for a plain column's value when it has one, else its own rule and schema. */
  event?: true | { schema: TSchema; value: (s: EventSource) => unknown }
}

/** A plain column, its record member derived from its kind. */
export function plain<C extends PackageColumn, V extends ValueKind, W extends WrittenBy>(
  column: C,
  value: V,
  writtenBy: W,
  description?: string,
) {
  return { column, value, writtenBy, record: recordSchemaOf(value, description) as RecordSchemaOf<V> }
}
