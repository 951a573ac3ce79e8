import type { Db } from '../../platform/db/database.js'
import { purgeFinishedCodes } from '../../packages/index.js'
import type { Clock } from '../../platform/kit/clock.js'

/**
 * How long a pickup code stays registered after the last of its packages was finished with
 * (delivered, returned, archived). While it is kept, the code is refused as "already been used"
 * (not "No pickup code") and is never handed out again; after it, the code is forgotten and may be
 * drawn again for a new arrival (one in 729 million per draw).
 */
export const PICKUP_CODE_RETENTION_DAYS = 90

const BATCH = 1_000

/** Housekeeping: forgets the codes past their retention, in batches; returns how many. */
export async function purgePickupCodes(
  db: Db,
  clock: Clock,
  retentionDays = PICKUP_CODE_RETENTION_DAYS,
): Promise<number> {
  const before = new Date(clock.now().getTime() - retentionDays * 86_400_000)
  let purged = 0
  for (let n = BATCH; n === BATCH; purged += n) n = await purgeFinishedCodes(db, before, BATCH)
  return purged
}
