import type { Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// API clients get a new secret over HTTP (issue 18): each new secret bumps the client's secret
// version, and an access token carries the version of the secret it was issued for, so the tokens
// of an old secret are refused as soon as the client's row is read again (access/tokens-service.ts).
// Tokens issued before this migration carry no version and count as version 0.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_clients')
    .addColumn('secret_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_clients').dropColumn('secret_version').execute()
}
