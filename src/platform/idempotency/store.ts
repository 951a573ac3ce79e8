import { sql } from 'kysely'
import type { Executor } from '../db/transaction.js'

export interface StoredResponse {
  request_hash: string
  status_code: number | null
  response_body: string | null
  response_type: string | null
}

/**
 * Claims the key; false when a live claim exists (this request's earlier try, or another). A key
 * past its lifetime, or claimed by a request that never completed (its process died), is claimed
 * anew: the upsert's WHERE makes the takeover atomic, so two retries cannot both win it.
 */
export async function claimKey(
  db: Executor,
  subId: string,
  key: string,
  requestHash: string,
  at: Date,
  cutoffs: { expiredBefore: Date; abandonedBefore: Date },
): Promise<boolean> {
  const r = await db
    .insertInto('idempotency_keys')
    .values({ sub_id: subId, idempotency_key: key, request_hash: requestHash, created_at: at })
    .onConflict((oc) =>
      oc
        .columns(['sub_id', 'idempotency_key'])
        .doUpdateSet({
          request_hash: requestHash,
          created_at: at,
          status_code: null,
          response_body: null,
          response_type: null,
        })
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.created_at', '<', cutoffs.expiredBefore),
            eb.and([
              eb('idempotency_keys.status_code', 'is', null),
              eb('idempotency_keys.created_at', '<', cutoffs.abandonedBefore),
            ]),
          ]),
        ),
    )
    .executeTakeFirst()
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0
}

export async function findKey(db: Executor, subId: string, key: string): Promise<StoredResponse | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status_code', 'response_body', 'response_type'])
    .where('sub_id', '=', subId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst()
}

/**
 * Stores the answer only while the claim made at `claimedAt` is still unanswered: false when it no
 * longer is. Called in the transaction of the write it answers for (outcome.ts), or after the
 * response for an answer not recorded there. Either way, a request that outlived its claim (a
 * retry took it over after IDEMPOTENCY_ABANDONED_MS) cannot overwrite the retry's answer, and one
 * whose transaction already stored the answer leaves it as it is.
 */
export async function completeClaim(
  trx: Executor,
  subId: string,
  key: string,
  claimedAt: Date,
  res: { status: number; body: string; type: string },
): Promise<boolean> {
  const r = await trx
    .updateTable('idempotency_keys')
    .set({ status_code: res.status, response_body: res.body, response_type: res.type })
    .where('sub_id', '=', subId)
    .where('idempotency_key', '=', key)
    .where('created_at', '=', claimedAt)
    .where('status_code', 'is', null)
    .executeTakeFirst()
  return Number(r.numUpdatedRows) > 0
}

/**
 * Frees the claim made at `claimedAt` for a retry to run the request again, unless it is answered
 * (its write committed) or no longer this request's (a retry took it over, and may have answered).
 */
export async function releaseKey(db: Executor, subId: string, key: string, claimedAt: Date): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('sub_id', '=', subId)
    .where('idempotency_key', '=', key)
    .where('created_at', '=', claimedAt)
    .where('status_code', 'is', null)
    .execute()
}

/** Deletes up to `batch` keys created before `olderThan`; short statements, run until it returns less than `batch`. */
export async function purgeKeys(db: Executor, olderThan: Date, batch: number): Promise<number> {
  const r = await sql`delete from idempotency_keys where (sub_id, idempotency_key) in (
    select sub_id, idempotency_key from idempotency_keys where created_at < ${olderThan} limit ${batch})`.execute(db)
  return Number(r.numAffectedRows ?? 0)
}
