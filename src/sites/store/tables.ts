// The sites domain's columns added after tables.ts was written, merged into its table type here
// (migration 0025): the domain owns its columns as it owns its migration.
declare module '../../platform/db/tables.js' {
  interface InboundSiteTable {
    /** Free text shown in arrival emails ("Mon–Fri 8:00–18:00"); null: none set. */
    opening_hours: string | null
  }
}

export {}
