import type { Db } from '../platform/db/database.js'
import { purgeIdempotencyKeys } from '../platform/idempotency/hooks.js'
import type { ImagesService } from '../images/index.js'
import { purgePickupCodes } from '../pickups/index.js'
import { foldTallies } from '../search/index.js'
import type { Clock } from '../platform/kit/clock.js'

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
 * and pickup codes kept their retention after their packages were finished with.
 */
export async function runHousekeeping(
  deps: Omit<HousekeepingDeps, 'log' | 'everyMs'>,
): Promise<{ images: number; idempotencyKeys: number; pickupCodes: number }> {
  let images = 0
  for (let n = await deps.images.purgeExpired(); n > 0; n = await deps.images.purgeExpired()) images += n
  const idempotencyKeys = await purgeIdempotencyKeys(deps.db, deps.clock)
  const pickupCodes = await purgePickupCodes(deps.db, deps.clock)
  return { images, idempotencyKeys, pickupCodes }
}

/**
 * Runs the housekeeping pass now and then every `everyMs` (10 minutes), and folds search-tally
 * deltas every `foldEveryMs`, in every process that serves or works: each pass deletes what is
 * due, and two processes at once only share the work. Returns a stop function that waits for a
 * pass in progress.
 */
export function startHousekeeping(deps: HousekeepingDeps): () => Promise<void> {
  let running: Promise<void> = Promise.resolve()
  const pass = () => {
    running = runHousekeeping(deps).then(
      (done) => {
        if (done.images + done.idempotencyKeys + done.pickupCodes > 0) deps.log('housekeeping', done)
      },
      (err: unknown) => deps.log('housekeeping failed', { err: err instanceof Error ? err.message : String(err) }),
    )
  }
  const timer = setInterval(pass, deps.everyMs ?? 10 * 60_000)
  timer.unref()
  pass()
  // Folding is cheap and keeps counts cheap; one fold at a time per process.
  let folding: Promise<void> | undefined
  const fold = () => {
    folding ??= foldTallies(deps.db)
      .then(
        () => undefined,
        (err: unknown) => deps.log('tally fold failed', { err: err instanceof Error ? err.message : String(err) }),
      )
      .finally(() => (folding = undefined))
  }
  const foldTimer = setInterval(fold, deps.foldEveryMs ?? 2_000)
  foldTimer.unref()
  return async () => {
    clearInterval(timer)
    clearInterval(foldTimer)
    await Promise.all([running, folding])
  }
}
