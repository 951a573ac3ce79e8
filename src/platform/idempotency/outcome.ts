import type { Db } from '../db/database.js'
import { inTransaction, type Executor } from '../db/transaction.js'
import { AppError } from '../kit/errors.js'

/**
 * Records a request's answer under its `Idempotency-Key` inside the transaction of the write it
 * guards, so that the two commit together: a process that dies after the commit leaves the answer
 * stored, and a retry gets it (with the original ids) instead of running the write again. A service
 * that writes takes one of these, optionally, and calls it with the result it will return, on its
 * transaction, before the commit. It throws when the key is no longer this request's (a retry took
 * an abandoned claim over), which rolls the write back.
 */
export type RecordOutcome<R> = (trx: Executor, result: R) => Promise<void>

/**
 * The write and, when the request carries a key, its recorded answer, in one transaction. Without
 * a key the write runs as it did (one statement needs no transaction). `result` is what the service
 * will return, known before the write (ids are made by the service, not the database).
 */
export async function writeRecorded<R>(
  db: Db,
  outcome: RecordOutcome<R> | undefined,
  result: R,
  write: (executor: Executor) => Promise<unknown>,
): Promise<R> {
  if (!outcome) {
    await write(db)
    return result
  }
  await inTransaction(db, async (trx) => {
    await write(trx)
    await outcome(trx, result)
  })
  return result
}

/** What a RecordOutcome throws when the key is no longer the request's: its write rolls back. */
export function claimLost(): AppError {
  return new AppError('IDEMPOTENCY_KEY_IN_PROGRESS', {
    field: 'Idempotency-Key',
    detail: 'the claim was taken over by a retry',
  })
}

/** Whether `e` is claimLost()'s: nothing of the transaction it ended was written. */
export function isClaimLost(e: unknown): boolean {
  return (
    e instanceof AppError &&
    e.code === 'IDEMPOTENCY_KEY_IN_PROGRESS' &&
    e.options.detail === 'the claim was taken over by a retry'
  )
}
