import type { Timestamp, CreatedAt, Json } from '../../platform/db/tables.js'
import type { ColumnType, Selectable } from 'kysely'

interface ApiClientTable {
  client_id: string
  sub_id: string
  name: string
  /** HMAC-SHA256(pepper, secret), hex. */
  secret_hash: string
  status: 'active' | 'disabled'
  created_at: CreatedAt
  disabled_at: Timestamp | null
  /** Bumped by each new secret; a token carries the version it was issued for (access/tokens-service.ts). */
  secret_version: ColumnType<number, number | undefined, number>
}

interface SigningKeyTable {
  kid: string
  alg: string
  public_jwk: Json<Record<string, unknown>>
  /** The private JWK sealed with AES-256-GCM under a key derived from the master secret. */
  private_sealed: string
  created_at: CreatedAt
  /** Set when a newer key takes over signing; the key stays published until retired_at + token TTL. */
  retired_at: Timestamp | null
}

// The access domain's tables, merged into the shared database type: the domain owns the types of
// its own migrations, as access/store/user-tables.ts does.
declare module '../../platform/db/tables.js' {
  interface Database {
    api_clients: ApiClientTable
    signing_keys: SigningKeyTable
  }
}

export type ApiClient = Selectable<ApiClientTable>

/** An API client is either honoured or not; disabling refuses its tokens and its secret. */
export const CLIENT_STATUSES = ['active', 'disabled'] as const
export type ClientStatus = (typeof CLIENT_STATUSES)[number]
