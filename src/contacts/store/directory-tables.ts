import type { ColumnType } from 'kysely'

// The contacts domain's directory columns and its delegates table (migration 0057), merged into
// the shared types here: the domain owns its columns as it owns its migration.
declare module '../../platform/db/tables.js' {
  interface ContactTable {
    /** SCIM userName: unique per subscription ignoring case; null: not provisioned by SCIM. */
    user_name: ColumnType<string | null, string | null | undefined, string | null>
    /** The SCIM resource as the provider last sent it, less what mailroom maps and any password. */
    scim_attributes: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
    /** When this departed recipient's waiting parcels were flagged; null: not departed, or none waiting then. */
    departure_noted_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  }
  interface Database {
    contact_delegates: ContactDelegateTable
  }
}

export interface ContactDelegateTable {
  sub_id: string
  contact_id: string
  /** A contact who may collect `contact_id`'s parcels (for a group contact: its members). */
  delegate_id: string
}
