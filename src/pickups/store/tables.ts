import type { ColumnType } from 'kysely'

// The pickups domain's columns added after tables.ts was written, merged into its table type here:
// the domain owns its columns as it owns its migration.
declare module '../../platform/db/tables.js' {
  interface PickupTable {
    /** Migration 0043: the collector's full name typed as their signature; null: none typed. */
    typed_signature: string | null
    /** Migration 0057: the collector was one of the receiver's delegates (issue 28). */
    delegate: ColumnType<boolean, boolean | undefined, boolean>
  }
}

export {}
