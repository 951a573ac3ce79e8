import type { ColumnType, Selectable } from 'kysely'

// The console's tables (migrations 0024 and 0030) as Kysely sees them, merged into the shared Database
// interface here so the domain owns its table types the way it owns its migration.
type Timestamp = ColumnType<Date, Date | string, Date | string>

/** Console roles: `admin` may do everything in its subscription, `clerk` the desk's work (see access.ts). */
export const ROLES = ['admin', 'clerk'] as const
export type Role = (typeof ROLES)[number]
export type UserStatus = 'active' | 'disabled'

export interface UserTable {
  user_id: string
  sub_id: string
  email: string
  name: string | null
  role: Role
  /** A clerk limited to this site and the sites below it; null: the whole subscription. */
  site_id: string | null
  /** argon2id, PHC string format. */
  password_hash: string
  status: ColumnType<UserStatus, UserStatus | undefined, UserStatus>
  created_at: Timestamp
  updated_at: Timestamp
  disabled_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

export interface UserSessionTable {
  /** SHA-256 (hex) of the cookie value; the value itself is never stored. */
  session_hash: string
  /** The public id the user lists and ends sessions by (migration 0030): unrelated to the cookie. */
  session_id: string
  /** The browser's User-Agent at sign-in (at most 256 characters), to tell sessions apart. */
  user_agent: string | null
  user_id: string
  csrf_token: string
  created_at: Timestamp
  last_seen_at: Timestamp
  /** The absolute end, whatever the activity. */
  expires_at: Timestamp
}

declare module '../../platform/db/tables.js' {
  interface Database {
    users: UserTable
    user_sessions: UserSessionTable
  }
}

export type UserRow = Selectable<UserTable>
export type UserSessionRow = Selectable<UserSessionTable>
