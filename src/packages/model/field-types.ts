import type { FieldName, PackageFields } from './fields.js'

// Types derived from the field registry: which columns and fields each capability covers.

type Values<T> = T[keyof T]
/** Every column some field is stored in. */
export type FieldColumn = Values<{ [K in FieldName]: PackageFields[K] extends { column: infer C } ? C : never }>
/** The columns a field's entry says `writtenBy: 'change'` of (the columns an update sets). */
export type ChangeColumn = Values<{
  [K in FieldName]: PackageFields[K] extends { writtenBy: 'change'; column: infer C } ? C : never
}>
/** Columns whose `package.<input>` replaces them as given (see FieldSpec.input). */
export type ReplacedColumn = Values<{
  [K in FieldName]: PackageFields[K] extends { input: { rule: 'replace' }; column: infer C } ? C : never
}>
export type SearchableField = Values<{
  [K in FieldName]: PackageFields[K] extends { search: infer S } ? (S extends { field: infer P } ? P : K) : never
}>
export type SortableField = Values<{
  [K in FieldName]: PackageFields[K] extends { sort: infer S } ? (S extends { field: infer P } ? P : K) : never
}>
