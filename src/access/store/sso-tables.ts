import type { Timestamp } from '../../platform/db/tables.js'
import type { Selectable } from 'kysely'
import type { Role } from './user-tables.js'

// The single sign-on tables (migrations 0060, 0061, 0066) as Kysely sees them.

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

/** A user's identity at a provider (migration 0066): the id_token's `iss` and `sub`, recorded at the first sign-in. */
export interface SsoIdentityTable {
  issuer: string
  subject: string
  user_id: string
  created_at: Timestamp
}

declare module '../../platform/db/tables.js' {
  interface Database {
    sso_settings: SsoSettingsTable
    sso_email_domains: SsoEmailDomainTable
    sso_identities: SsoIdentityTable
  }
}

export type SsoSettingsRow = Selectable<SsoSettingsTable>
