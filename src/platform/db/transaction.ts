import { AsyncLocalStorage } from 'node:async_hooks'
import type { Transaction } from 'kysely'
import type { Database } from './tables.js'
import type { Db } from './database.js'

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

/** Runs `work` in one transaction; it commits when `work` resolves and rolls back when it throws. */
export function inTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  if (!guarded.has(db)) return db.transaction().execute(work)
  const scope = { inside: false }
  return transactionScope.run(scope, () =>
    db.transaction().execute((trx) => {
      scope.inside = true
      return work(trx)
    }),
  )
}
