import type { Db } from '../db/database.js'
import { foldTallyDeltas } from './tallies.repo.js'

export { tallySubscription } from './tallies.repo.js'

/**
 * Folds every pending tally delta (migration 0010) into the tallies, in batches, and returns how
 * many went. Counts are exact with or without folding; folding keeps them a sum over few rows.
 */
export async function foldTallies(db: Db, batch = 5_000): Promise<number> {
  let total = 0
  for (let n = await foldTallyDeltas(db, batch); ; n = await foldTallyDeltas(db, batch)) {
    total += n
    if (n < batch) return total
  }
}
