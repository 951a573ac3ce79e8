import type { ColumnType, Selectable } from 'kysely'
import type { ShelfKind } from '../model/shelf.js'

// The shelves tables (migration 0071) as Kysely sees them, merged into the shared Database
// interface here: the domain owns its table types as it owns its migration.
type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string, string>

export interface ShelfTable {
  sub_id: string
  site_id: string
  code: string
  kind: ShelfKind
  created_at: Timestamp
}

export interface ShelfAuditTable {
  audit_id: string
  sub_id: string
  site_id: string
  audited_by: string
  audited_at: Timestamp
  found_ids: Json<string[]>
  missing_ids: Json<string[]>
  misplaced_ids: Json<string[]>
  unknown_scans: Json<string[]>
}

declare module '../../platform/db/tables.js' {
  interface Database {
    shelves: ShelfTable
    shelf_audits: ShelfAuditTable
  }
}

export type ShelfRow = Selectable<ShelfTable>
