import type { Db } from '../../platform/db/database.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { createJobRunner } from '../../platform/jobs/runner.js'
import { LEASE_MARGIN_MS } from '../../platform/jobs/lease.js'
import type { PeriodicTask } from '../../platform/jobs/scheduler.js'
import { claimDue, type ClaimedDelivery } from '../store/deliveries-claim.js'
import { PURGE_EVERY_MS, type ScheduledJobs } from '../jobs/jobs.js'
import type { AttemptDeps } from './deliver.js'
import { createFanOut } from './fan-out.js'
import { createRecorder } from './record.js'
import type { RetrySchedule } from './retry.js'
import { createSender, type WorkerLog } from './runs.js'

export type { WorkerLog }

export interface WorkerDeps extends AttemptDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  /** [0, 1): the retry jitter. */
  random: () => number
  jobs: ScheduledJobs
  log: WorkerLog
  workerId: string
  /** Deliveries one claim takes, at most (never more than the free slots of `concurrency`). */
  batchSize: number
  concurrency: number
  retry: RetrySchedule
  /** How long the loop sleeps when it ran out of work. */
  pollMs: number
  /** See RunnerOptions.idlePollMs (platform/jobs/runner.ts). */
  idlePollMs?: number
}

export interface WorkerStep {
  /** Locker events written by the scheduled jobs. */
  emitted: number
  /** Outbox events turned into deliveries. */
  fannedOut: number
  attempted: number
  delivered: number
  failed: number
}

const JOBS_EVERY_MS = 60_000

/**
 * The webhook worker: the outbox fanned out into deliveries, and each delivery a job of the one
 * runner (platform/jobs): claimed when a slot is free, sent, its attempt recorded as soon as its
 * answer is in. Deliveries are independent: no order between them, so a failing one holds nothing up.
 */
export function createWorker(deps: WorkerDeps) {
  const { db, clock, log, workerId } = deps
  const { fanOutAll } = createFanOut(deps)
  const { attempt } = createSender(deps)
  const { record } = createRecorder(deps)
  // What runOnce counts while it drains; undefined in the background loop.
  let tally: WorkerStep | undefined

  const runner = createJobRunner<ClaimedDelivery>(
    {
      prepare: async () => {
        const n = await fanOutAll()
        if (tally) tally.fannedOut += n
        return n
      },
      claim: (limit) => {
        const now = clock.now()
        return claimDue(db, {
          now,
          limit: Math.min(limit, deps.batchSize),
          workerId,
          leaseMarginSeconds: LEASE_MARGIN_MS / 1000,
          windowEnd: new Date(now.getTime() + deps.retry.windowMs),
        })
      },
      run: async (d) => {
        const result = await attempt(d)
        await record({ claimed: d, result })
        if (tally) {
          tally.attempted++
          if (result.succeeded) tally.delivered++
          else tally.failed++
        }
      },
    },
    { concurrency: deps.concurrency, pollMs: deps.pollMs, idlePollMs: deps.idlePollMs, log, name: 'webhooks' },
  )

  return {
    /** Events were just written in this process: an idle worker looks within pollMs, not after its longer sleep. */
    nudge: () => runner.nudge(),

    /**
     * Everything due at the clock's now, to the end: the scheduled jobs, the fan-out, then rounds of
     * claim → send → record until nothing is due (a failure is always rescheduled at least a
     * second later, so this ends). Tests step the worker with it.
     */
    async runOnce(): Promise<WorkerStep> {
      const step: WorkerStep = { emitted: await deps.jobs.run(), fannedOut: 0, attempted: 0, delivered: 0, failed: 0 }
      await deps.jobs.purge()
      tally = step
      try {
        await runner.drain()
      } finally {
        tally = undefined
      }
      return step
    },

    /** The runner's loop (fan-out and delivery); the returned stop lets in-flight sends finish and record. */
    start: () => runner.start(),

    /** Its periodic jobs, for the one scheduler the app starts (app/background.ts). */
    periodicTasks: [
      { name: 'webhook jobs', everyMs: JOBS_EVERY_MS, run: () => deps.jobs.run() },
      // The purge may run for many seconds: beside the runner, never in its way.
      { name: 'webhook purge', everyMs: PURGE_EVERY_MS, run: (signal) => deps.jobs.purge(signal) },
    ] satisfies PeriodicTask[],
  }
}
