import type { ColumnType } from 'kysely'

// The columns the auth domain added to api_clients after migration 0001 (here 0031), merged into
// the shared table type so the domain owns the types of its own migrations, as access/store/user-tables.ts does.
declare module '../../platform/db/tables.js' {
  interface ApiClientTable {
    /** Bumped by each new secret; a token carries the version it was issued for (access/tokens-service.ts). */
    secret_version: ColumnType<number, number | undefined, number>
  }
}

/** An API client is either honoured or not; disabling refuses its tokens and its secret. */
export const CLIENT_STATUSES = ['active', 'disabled'] as const
export type ClientStatus = (typeof CLIENT_STATUSES)[number]
