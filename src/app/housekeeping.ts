import type { Db } from '../platform/db/database.js'
import { purgeEndedSessions } from '../access/index.js'
import { purgeIdempotencyKeys } from '../platform/idempotency/hooks.js'
import type { ImagesService } from '../images/index.js'
import { purgePickupCodes } from '../pickups/index.js'
import { foldTallies } from '../search/index.js'
import { foldReportTallies } from '../reports/index.js'
import type { Clock } from '../platform/kit/clock.js'
import type { PeriodicTask } from '../platform/jobs/scheduler.js'

export interface HousekeepingDeps {
  db: Db
  clock: Clock
  images: Pick<ImagesService, 'purgeExpired'>
  log: (msg: string, extra: Record<string, unknown>) => void
  everyMs?: number
  /** How often search-tally deltas are folded (2 s): the deltas a count reads besides the tallies. */
  foldEveryMs?: number
}

/**
 * One pass: uploads never attached within their 24 hours, Idempotency-Keys past their lifetime,
 * pickup codes kept their retention after their packages were finished with, and console sessions
 * past their absolute end (a request that finds its session ended refuses it, and writes nothing).
 */
export async function runHousekeeping(
  deps: Omit<HousekeepingDeps, 'log' | 'everyMs'>,
): Promise<{ images: number; idempotencyKeys: number; pickupCodes: number; sessions: number }> {
  let images = 0
  for (let n = await deps.images.purgeExpired(); n > 0; n = await deps.images.purgeExpired()) images += n
  const idempotencyKeys = await purgeIdempotencyKeys(deps.db, deps.clock)
  const pickupCodes = await purgePickupCodes(deps.db, deps.clock)
  const sessions = await purgeEndedSessions(deps.db, deps.clock)
  return { images, idempotencyKeys, pickupCodes, sessions }
}

/**
 * The housekeeping pass (every `everyMs`, 10 minutes) and the search-tally fold (every
 * `foldEveryMs`), for the one scheduler (app/background.ts), in every process that serves or works:
 * each pass deletes what is due, and two processes at once only share the work.
 */
export function housekeepingTasks(deps: HousekeepingDeps): PeriodicTask[] {
  return [
    {
      name: 'housekeeping',
      everyMs: deps.everyMs ?? 10 * 60_000,
      run: async () => {
        const done = await runHousekeeping(deps)
        if (done.images + done.idempotencyKeys + done.pickupCodes + done.sessions > 0) deps.log('housekeeping', done)
      },
    },
    // Folding is cheap and keeps counts cheap.
    { name: 'tally fold', everyMs: deps.foldEveryMs ?? 2_000, run: () => foldTallies(deps.db) },
    // The report tallies (migration 0072) the same way; a report reads few rows either way.
    { name: 'report tally fold', everyMs: deps.foldEveryMs ?? 2_000, run: () => foldReportTallies(deps.db) },
  ]
}
