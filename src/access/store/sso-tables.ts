import type { ColumnType, Selectable } from 'kysely'
import type { Role } from './user-tables.js'

// The single sign-on tables (migration 0060) as Kysely sees them.
type Timestamp = ColumnType<Date, Date | string, Date | string>

export interface SsoSettingsTable {
  sub_id: string
  enabled: boolean
  issuer: string | null
  client_id: string | null
  /** AES-256-GCM (platform/kit/crypto.ts `seal`), bound to the subscription; null: a public client (PKCE only). */
  client_secret_sealed: string | null
  provision_users: boolean
  default_role: Role
  require_verified_email: boolean
  password_sign_in: boolean
  created_at: Timestamp
  updated_at: Timestamp
}

export interface SsoEmailDomainTable {
  /** Lower case, no trailing dot. Any subscription may claim it; one at most holds it granted. */
  domain: string
  sub_id: string
  /** When the operator granted the claim (`mailroom sso grant`, migration 0061); null: pending. */
  granted_at: Timestamp | null
}

declare module '../../platform/db/tables.js' {
  interface Database {
    sso_settings: SsoSettingsTable
    sso_email_domains: SsoEmailDomainTable
  }
}

export type SsoSettingsRow = Selectable<SsoSettingsTable>
