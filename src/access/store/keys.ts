import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

export interface StoredKey {
  kid: string
  alg: string
  publicJwk: Record<string, unknown>
  privateSealed: string
  createdAt: Date
  retiredAt: Date | null
}

/** Keys still worth publishing: the signing key, and retired ones whose tokens may still be alive. */
export async function listPublishedKeys(db: Executor, now: Date, tokenTtlSeconds: number): Promise<StoredKey[]> {
  const cutoff = new Date(now.getTime() - tokenTtlSeconds * 1000)
  const rows = await db
    .selectFrom('signing_keys')
    .select(['kid', 'alg', 'public_jwk', 'private_sealed', 'created_at', 'retired_at'])
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', cutoff)]))
    .orderBy('created_at', 'desc')
    .execute()
  return rows.map((r) => ({
    kid: r.kid,
    alg: r.alg,
    publicJwk: r.public_jwk,
    privateSealed: r.private_sealed,
    createdAt: r.created_at,
    retiredAt: r.retired_at,
  }))
}

export async function insertKey(
  db: Executor,
  key: { kid: string; alg: string; publicJwk: Record<string, unknown>; privateSealed: string; createdAt: Date },
): Promise<void> {
  await db
    .insertInto('signing_keys')
    .values({
      kid: key.kid,
      alg: key.alg,
      public_jwk: JSON.stringify(key.publicJwk),
      private_sealed: key.privateSealed,
      created_at: key.createdAt,
    })
    .execute()
}

export async function retireKeysExcept(db: Executor, kid: string, at: Date): Promise<void> {
  await db
    .updateTable('signing_keys')
    .set({ retired_at: at })
    .where('kid', '!=', kid)
    .where('retired_at', 'is', null)
    .execute()
}

/** Serialises rotation across processes (works on PostgreSQL and PGlite alike). */
export async function lockKeyRotation(db: Executor): Promise<void> {
  await sql`select pg_advisory_xact_lock(727001)`.execute(db)
}
