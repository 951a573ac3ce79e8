import type { Db } from '../db/database.js'
import { purgeIdempotencyKeys } from '../idempotency/idempotency.hooks.js'
import type { ImagesService } from '../images/images.service.js'
import type { Clock } from '../shared/clock.js'

export interface HousekeepingDeps {
  db: Db
  clock: Clock
  images: Pick<ImagesService, 'purgeExpired'>
  log: (msg: string, extra: Record<string, unknown>) => void
  everyMs?: number
}

/** One pass: uploads never attached within their 24 hours, and Idempotency-Keys past their lifetime. */
export async function runHousekeeping(deps: Omit<HousekeepingDeps, 'log' | 'everyMs'>): Promise<{ images: number; idempotencyKeys: number }> {
  let images = 0
  for (let n = await deps.images.purgeExpired(); n > 0; n = await deps.images.purgeExpired()) images += n
  const idempotencyKeys = await purgeIdempotencyKeys(deps.db, deps.clock)
  return { images, idempotencyKeys }
}

/**
 * Runs the housekeeping pass now and then every `everyMs` (10 minutes), in every process that
 * serves or works: each pass deletes what is due, and two processes deleting at once only share
 * the work. Returns a stop function that waits for a pass in progress.
 */
export function startHousekeeping(deps: HousekeepingDeps): () => Promise<void> {
  let running: Promise<void> = Promise.resolve()
  const pass = () => {
    running = runHousekeeping(deps).then(
      (done) => {
        if (done.images + done.idempotencyKeys > 0) deps.log('housekeeping', done)
      },
      (err: unknown) => deps.log('housekeeping failed', { err: err instanceof Error ? err.message : String(err) }),
    )
  }
  const timer = setInterval(pass, deps.everyMs ?? 10 * 60_000)
  timer.unref()
  pass()
  return async () => {
    clearInterval(timer)
    await running
  }
}
