import type { Executor } from '../db/transaction.js'

export interface StoredResponse {
  request_hash: string
  status_code: number | null
  response_body: string | null
  response_type: string | null
}

/** Claims the key; false when it was already claimed (by this request's earlier try, or another). */
export async function claimKey(db: Executor, subId: string, key: string, requestHash: string, at: Date): Promise<boolean> {
  const r = await db.insertInto('idempotency_keys').values({ sub_id: subId, idempotency_key: key, request_hash: requestHash, created_at: at })
    .onConflict((oc) => oc.columns(['sub_id', 'idempotency_key']).doNothing()).executeTakeFirst()
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0
}

export async function findKey(db: Executor, subId: string, key: string): Promise<StoredResponse | undefined> {
  return db.selectFrom('idempotency_keys').select(['request_hash', 'status_code', 'response_body', 'response_type'])
    .where('sub_id', '=', subId).where('idempotency_key', '=', key).executeTakeFirst()
}

export async function completeKey(db: Executor, subId: string, key: string, res: { status: number; body: string; type: string }): Promise<void> {
  await db.updateTable('idempotency_keys').set({ status_code: res.status, response_body: res.body, response_type: res.type })
    .where('sub_id', '=', subId).where('idempotency_key', '=', key).execute()
}

export async function releaseKey(db: Executor, subId: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('sub_id', '=', subId).where('idempotency_key', '=', key).execute()
}

export async function purgeKeys(db: Executor, olderThan: Date): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('created_at', '<', olderThan).executeTakeFirst()
  return Number(r.numDeletedRows)
}
