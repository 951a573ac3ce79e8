import type { Selectable } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { ScimTokenTable } from './tables.js'

export type ScimTokenRow = Selectable<ScimTokenTable>
const LISTED = ['token_id', 'sub_id', 'name', 'created_at', 'last_used_at', 'revoked_at'] as const
export type ListedToken = Pick<ScimTokenRow, (typeof LISTED)[number]>

export async function insertToken(db: Executor, row: ScimTokenRow): Promise<void> {
  await db.insertInto('scim_tokens').values(row).execute()
}

/** A live token by id, for its bearer's check. */
export async function findLiveToken(db: Executor, tokenId: string): Promise<ScimTokenRow | undefined> {
  return db
    .selectFrom('scim_tokens')
    .select([...LISTED, 'secret_hash'])
    .where('token_id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
}

export async function listTokens(db: Executor, subId: string): Promise<ListedToken[]> {
  return db
    .selectFrom('scim_tokens')
    .select(LISTED)
    .where('sub_id', '=', subId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .execute()
}

export async function revokeToken(db: Executor, subId: string, tokenId: string, at: Date): Promise<boolean> {
  const r = await db
    .updateTable('scim_tokens')
    .set({ revoked_at: at })
    .where('sub_id', '=', subId)
    .where('token_id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

export async function touchToken(db: Executor, tokenId: string, at: Date): Promise<void> {
  await db.updateTable('scim_tokens').set({ last_used_at: at }).where('token_id', '=', tokenId).execute()
}
