// The sites domain's columns added after tables.ts was written, merged into its table type here
// (migration 0025): the domain owns its columns as it owns its migration.
declare module '../../platform/db/tables.js' {
  interface InboundSiteTable {
    /** Free text shown in arrival emails ("Mon–Fri 8:00–18:00"); null: none set. */
    opening_hours: string | null
    /** Migration 0039: the signature a hand-over here needs; null: the nearest ancestor's. */
    signature_rule: 'required' | 'optional' | 'off' | null
    /** Migration 0039: a photo of the collector or their ID may replace the signature; null: inherited. */
    photo_proof_allowed: boolean | null
    /** Migration 0077: the site's holding fee (model/holding-fee.ts); a null per-day amount: inherited. */
    holding_fee_free_days: number | null
    holding_fee_per_day: number | null
    holding_fee_currency: string | null
    holding_fee_cap: number | null
    /** Migration 0081: the site's quiet hours for texts (model/quiet-hours.ts); both null: inherited. */
    quiet_start: string | null
    quiet_end: string | null
  }
}

export {}
