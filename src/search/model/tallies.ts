import type { Db } from '../../platform/db/database.js'
import type { Executor } from '../../platform/db/transaction.js'
import * as repo from '../store/tallies.js'

/**
 * Counts one subscription's tallies afresh from its packages: for a bulk load into an empty
 * table that ran with the tally triggers off (mailroom seed), inside the load's transaction.
 */
export function tallySubscription(db: Executor, subId: string): Promise<void> {
  return repo.tallySubscription(db, subId)
}

/**
 * Folds every pending tally delta (migration 0010) into the tallies, in batches, and returns how
 * many went. Counts are exact with or without folding; folding keeps them a sum over few rows.
 */
export async function foldTallies(db: Db, batch = 5_000): Promise<number> {
  let total = 0
  for (let n = await repo.foldTallyDeltas(db, batch); ; n = await repo.foldTallyDeltas(db, batch)) {
    total += n
    if (n < batch) return total
  }
}
