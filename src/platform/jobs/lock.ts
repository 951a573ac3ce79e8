import { sql } from 'kysely'
import type { Executor } from '../db/transaction.js'

/**
 * One holder at a time across every process, for the rest of the transaction; false: someone else
 * runs it. The key keeps its first prefix, so that processes of an older version exclude these too.
 */
export async function tryJobLock(trx: Executor, job: string): Promise<boolean> {
  const { rows } = await sql<{
    ok: boolean
  }>`select pg_try_advisory_xact_lock(hashtext(${`mailroom:webhooks:${job}`})) as ok`.execute(trx)
  return rows[0]?.ok === true
}
