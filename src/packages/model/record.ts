import { Type, type Static } from '@sinclair/typebox'
import type { PackageRow } from './field-kinds.js'
import { plainReader } from './field-kinds.js'
import { FIELD_ENTRIES, type FieldName, type PackageFields } from './fields.js'
import type { RecordContext } from './refs.js'

export type { RecordContext } from './refs.js'

type RecordProperties = { -readonly [K in FieldName]: PackageFields[K]['record'] }

/** The Package record: the registry's record members, in its order (fields.ts). */
export const PackageRecordSchema = Type.Object(
  Object.fromEntries(FIELD_ENTRIES.map(([name, f]) => [name, f.record])) as RecordProperties,
  { $id: 'Package', title: 'Package' },
)
export type PackageRecord = Static<typeof PackageRecordSchema>

type Reader = (r: PackageRow, ctx: RecordContext) => unknown
const READERS: ReadonlyArray<readonly [FieldName, Reader]> = FIELD_ENTRIES.map(([name, f]) => {
  if (f.read) return [name, f.read] as const
  if (f.value && f.column) return [name, plainReader(f.value, f.column)] as const
  throw new Error(`package field ${name} has neither a plain column nor a reader`)
})

/** The record of a package row, every member read as its registry entry says. */
export function toRecord(ctx: RecordContext, r: PackageRow): PackageRecord {
  const out: Record<string, unknown> = {}
  for (const [name, read] of READERS) out[name] = read(r, ctx)
  return out as PackageRecord
}
