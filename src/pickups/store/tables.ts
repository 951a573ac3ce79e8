import type { ColumnType } from 'kysely'
import type { PickupFees } from '../model/fees.js'

// The pickups domain's columns added after tables.ts was written, merged into its table type here:
// the domain owns its columns as it owns its migration.
declare module '../../platform/db/tables.js' {
  interface PickupTable {
    /** Migration 0043: the collector's full name typed as their signature; null: none typed. */
    typed_signature: string | null
    /** Migration 0057: the collector was one of the receiver's delegates (issue 28). */
    delegate: ColumnType<boolean, boolean | undefined, boolean>
    /** Migration 0077: the holding fees charged (model/fees.ts); null: none. */
    holding_fees: ColumnType<PickupFees | null, string | null | undefined, string | null>
  }
}

export {}
