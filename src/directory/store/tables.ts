import type { ColumnType } from 'kysely'

// The directory's tables (migrations 0057, 0065) as Kysely sees them, merged into the shared Database
// interface here: the domain owns its table types as it owns its migration.
type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string, string>

export interface ScimTokenTable {
  token_id: string
  sub_id: string
  name: string
  /** HMAC-SHA256 of the secret part under the server's key: the token itself is never stored. */
  secret_hash: string
  created_at: Timestamp
  last_used_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>
}

export interface LdapMappingJson {
  externalId: string
  name: string
  email?: string
  phone?: string
  company?: string
  personalId?: string
  unit?: string
  givenName?: string
  familyName?: string
}

export interface LdapRunJson {
  at: string
  ok: boolean
  seen: number
  created: number
  updated: number
  deactivated: number
  unchanged: number
  invalid: number
  ms: number
  error?: string
  /** The run's id: an admin confirms a refused run by it. */
  runId?: string
  /** The run wrote nothing: it would have deactivated too many contacts (model/ldap-guard.ts). */
  refused?: { reason: 'empty_search' | 'too_many'; deactivations: number; allowed: number }
}

export interface LdapSettingsTable {
  sub_id: string
  enabled: boolean
  url: string
  bind_dn: string
  /** AES-256-GCM under the server's key, bound to the subscription (webhooks' sealing). */
  bind_password_sealed: string
  base_dn: string
  filter: string
  mapping: Json<LdapMappingJson>
  interval_minutes: number
  next_run_at: Timestamp
  last_run: ColumnType<LdapRunJson | null, string | null | undefined, string | null>
  updated_at: Timestamp
  /** Migration 0065: who holds the run's lease, and until when (renewed while it runs). */
  run_lease: ColumnType<string | null, string | null | undefined, string | null>
  run_lease_until: ColumnType<Date | null, Date | null | undefined, Date | null>
  max_deactivation_percent: ColumnType<number, number | undefined, number>
}

declare module '../../platform/db/tables.js' {
  interface Database {
    scim_tokens: ScimTokenTable
    ldap_settings: LdapSettingsTable
  }
}
