import type { Db } from '../../platform/db/database.js'
import { isStatementError } from '../../platform/db/errors.js'
import { inTransaction, type Executor } from '../../platform/db/transaction.js'
import { isClaimLost, type RecordOutcome } from '../../platform/idempotency/outcome.js'
import type { ImagesService } from '../../images/index.js'
import * as repo from '../store/packages.js'
import type { Body } from './rules.js'
import { writeTogether } from './together.js'

/** An add handed to the writer, with the answer to record under its Idempotency-Key, if any. */
export interface NewAdd<R> {
  add: repo.NewPackage
  outcome: RecordOutcome<R> | undefined
  result: R
}

/** How the commands write: concurrent writes together (one statement, one commit), or one change under its row lock. */
export function createPackageWriter<R>(deps: { db: Db; images: ImagesService; newPickupCode: () => string }) {
  const { db, images, newPickupCode } = deps
  /**
   * A repo write (its events go to the outbox in its statement: consumers read them from there). A
   * write that chooses pickup codes (`choosesCodes`) runs in a transaction: a receiver given a new
   * code is checked under a lock held until commit (packages/store/packages.ts adoptCommittedCodes).
   */
  const transactional =
    <T>(write: (ex: Executor, items: readonly T[]) => Promise<Set<string>>, choosesCodes: (item: T) => boolean) =>
    (ex: Executor, items: readonly T[]): Promise<Set<string>> =>
      ex.isTransaction || !items.some(choosesCodes) ? write(ex, items) : inTransaction(db, (trx) => write(trx, items))
  const writeChanges = transactional(
    (ex: Executor, changes: readonly repo.PackageChange[]) => repo.writeChanges(ex, changes, newPickupCode),
    (c) => Boolean(c.pickupCode),
  )
  const insertNewPackages = transactional(
    (ex: Executor, adds: readonly repo.NewPackage[]) => repo.insertNewPackages(ex, adds, newPickupCode),
    (a) => Boolean(a.package.pickup_code),
  )
  return {
    /** repo.writeChanges and repo.insertNewPackages: every package write goes through these. */
    writeChanges,
    insertNewPackages,

    /**
     * Writes one change inside the caller's transaction (which holds the package's row lock), then
     * attaches the images to its activity.
     */
    async recordLocked(trx: Executor, change: repo.PackageChange, toAttach: Body['images']) {
      const packageId = change.package.package_id
      if (!(await writeChanges(trx, [change])).has(packageId))
        throw new Error(`package ${packageId} changed under its row lock`)
      return toAttach?.length
        ? images.attach(trx, change.package.sub_id, packageId, change.activity.activity_id, toAttach)
        : []
    },

    /** Concurrent updates without images: one statement, one commit (see writeTogether). */
    changeTogether: writeTogether<repo.PackageChange>(
      (changes) => writeChanges(db, changes),
      (c) => c.package.package_id,
      isStatementError,
    ),

    /**
     * Concurrent adds without images: one statement, one commit (see writeTogether). The answers of
     * those with an Idempotency-Key are stored in the same transaction; a key lost to a retry fails
     * the batch before its commit, and then each add is written alone.
     */
    addTogether: writeTogether<NewAdd<R>>(
      async (items) => {
        const adds = items.map((i) => i.add)
        if (!items.some((i) => i.outcome)) return insertNewPackages(db, adds)
        return inTransaction(db, async (trx) => {
          const written = await insertNewPackages(trx, adds)
          for (const { add, outcome, result } of items)
            if (outcome && written.has(add.package.package_id)) await outcome(trx, result)
          return written
        })
      },
      (i) => i.add.package.package_id,
      (e) => isStatementError(e) || isClaimLost(e),
    ),
  }
}
