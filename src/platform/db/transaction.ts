import { AsyncLocalStorage } from 'node:async_hooks'
import type { Transaction } from 'kysely'
import type { Database } from './tables.js'
import type { Db } from './database.js'
import { retryOnConflict } from './retry.js'

export type Trx = Transaction<Database>
/** Either the database or an open transaction: repos accept both so services decide the boundary. */
export type Executor = Db | Trx

/**
 * Marks the code running inside a transaction. A query on the plain database from there is a bug:
 * it runs outside the transaction, and on PGlite (one connection) it waits for the transaction
 * that waits for it. The PGlite driver refuses such a query at once instead of hanging.
 *
 * Only on databases opened with `guardTransactions` (the test suite's): on Node 20 the first
 * AsyncLocalStorage.run turns on promise hooks for the whole process, which costs every request
 * of the service (about a fifth of an authenticated GET's CPU), to catch a bug tests already catch.
 */
export const transactionScope = new AsyncLocalStorage<{ inside: boolean }>()
const guarded = new WeakSet<Db>()

/** Makes inTransaction mark its scope on this database (see transactionScope). */
export function guardTransactions(db: Db): void {
  guarded.add(db)
}

/**
 * Transactions aborted as a deadlock's victim or for a serialization failure (another process took
 * the same rows in the other order) are run again, whole, this many times in all: the winner has
 * gone ahead, so a second run normally passes, and a client never sees the race as a 500.
 */
const ATTEMPTS = 5

/**
 * Runs `work` in one transaction; it commits when `work` resolves and rolls back when it throws.
 * A run PostgreSQL aborted with 40P01/40001 rolled back whole, so `work` is run again from the start
 * (retryOnConflict): everything it writes, outbox events and idempotency answers included, goes
 * through `trx` and was rolled back with it. `work` must therefore keep its effects in the database
 * (no sends, no in-memory state changed before the commit): true of every service transaction.
 */
export function inTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return retryOnConflict(() => runOnce(db, work), ATTEMPTS)
}

function runOnce<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  if (!guarded.has(db)) return db.transaction().execute(work)
  const scope = { inside: false }
  return transactionScope.run(scope, () =>
    db.transaction().execute((trx) => {
      scope.inside = true
      return work(trx)
    }),
  )
}
