import type { Db } from '../../platform/db/database.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { claimDue, type ClaimedDelivery } from '../store/deliveries-claim.js'
import type { ScheduledJobs } from '../jobs/jobs.js'
import type { AttemptDeps } from './deliver.js'
import { createFanOut } from './fan-out.js'
import { createRecorder } from './record.js'
import type { RetrySchedule } from './retry.js'
import { createSender, runsOf, type Completion, type WorkerLog } from './runs.js'

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
  batchSize: number
  concurrency: number
  retry: RetrySchedule
  /** How long the loop sleeps when it ran out of work. */
  pollMs: number
  /**
   * Longest sleep of a worker that keeps finding nothing: the sleep doubles from pollMs up to this
   * (default pollMs: no back-off). Only where every write is in this process (PGlite), which then
   * nudges the worker: elsewhere another process's events would wait the longer sleep.
   */
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

const LEASE_MARGIN_SECONDS = 10
const JOBS_EVERY_MS = 60_000
const FLUSH_BATCH = 500
const FLUSH_COALESCE_MS = 10
/** Deliveries of one package to one configuration sent in one claim, one after another (see claimDue). */
const RUN_MAX = 50

export function createWorker(deps: WorkerDeps) {
  const { db, clock, log, workerId } = deps
  const { fanOutAll } = createFanOut(deps)
  const { sendRun, attemptAll } = createSender(deps)
  const { complete } = createRecorder(deps)

  function claim(limit: number): Promise<ClaimedDelivery[]> {
    const now = clock.now()
    return claimDue(db, {
      now,
      limit,
      runMax: RUN_MAX,
      workerId,
      leaseMarginSeconds: LEASE_MARGIN_SECONDS,
      windowEnd: new Date(now.getTime() + deps.retry.windowMs),
    })
  }

  // How the running loop (see start) is told of new events; undefined while it is not running.
  let nudgeLoop: (() => void) | undefined

  return {
    /** Events were just written in this process: an idle worker looks within pollMs, not after its longer sleep. */
    nudge(): void {
      nudgeLoop?.()
    },

    /**
     * Everything due at the clock's now, to the end: the scheduled jobs, the fan-out, then rounds of
     * claim → send → record until nothing is due (a failure is always rescheduled at least a
     * second later, so this ends). Tests step the worker with it.
     */
    async runOnce(): Promise<WorkerStep> {
      const step: WorkerStep = { emitted: await deps.jobs.run(), fannedOut: 0, attempted: 0, delivered: 0, failed: 0 }
      await deps.jobs.purge()
      step.fannedOut = await fanOutAll()
      for (let round = 0; round < 10_000; round++) {
        const claimed = await claim(deps.batchSize)
        if (claimed.length === 0) break
        const done = await attemptAll(claimed)
        await complete(done)
        for (const c of done) {
          if (!c.result) continue
          step.attempted++
          if (c.result.succeeded) step.delivered++
          else step.failed++
        }
      }
      return step
    },

    /** The background loop: keeps up to `concurrency` sends in flight and records them in batches. */
    start(): () => Promise<void> {
      let stopped = false
      let wake: (() => void) | undefined
      // A nudge cuts a long idle sleep down to pollMs after the last look, never shorter: under a
      // stream of writes the worker still looks once per pollMs, fanning out many events at a time,
      // instead of once per write (on PGlite each look takes the one connection from the requests).
      let hurry: (() => void) | undefined
      let nudged = false
      let idleSleep = deps.pollMs
      nudgeLoop = () => {
        nudged = true
        hurry?.()
      }
      const inflight = new Set<Promise<void>>()
      const queue: Completion[] = []
      let flushing: Promise<void> | undefined
      let nextJobsAt = 0
      // The purge may run for many seconds: beside the loop, never in its way, one run at a time.
      const purgeStop = new AbortController()
      let purging: Promise<unknown> | undefined

      const sleep = (ms: number) =>
        new Promise<void>((resolve) => {
          const started = Date.now()
          const done = () => {
            clearTimeout(timer)
            wake = undefined
            hurry = undefined
            resolve()
          }
          let timer = setTimeout(done, ms)
          wake = done
          hurry =
            ms <= deps.pollMs
              ? undefined
              : () => {
                  clearTimeout(timer)
                  timer = setTimeout(done, Math.max(0, started + deps.pollMs - Date.now()))
                  hurry = undefined
                }
        })

      const flush = (): Promise<void> => {
        flushing ??= (async () => {
          // Let the answers arriving together be recorded together: one transaction, not many.
          await new Promise((r) => setTimeout(r, FLUSH_COALESCE_MS))
          while (queue.length > 0) {
            const batch = queue.splice(0, FLUSH_BATCH)
            try {
              await complete(batch)
            } catch (err) {
              // The leases run out and the deliveries are sent again: at least once, never lost.
              log.error({ err, count: batch.length }, 'recording webhook attempts failed')
            }
            wake?.()
          }
        })().finally(() => {
          flushing = undefined
          if (queue.length > 0) void flush()
        })
        return flushing
      }

      const loop = (async () => {
        while (!stopped) {
          try {
            if (clock.now().getTime() >= nextJobsAt) {
              nextJobsAt = clock.now().getTime() + JOBS_EVERY_MS
              await deps.jobs.run().catch((err: unknown) => log.error({ err }, 'webhook scheduled jobs failed'))
              purging ??= deps.jobs
                .purge(purgeStop.signal)
                .catch((err: unknown) => log.error({ err }, 'webhook retention purge failed'))
                .finally(() => (purging = undefined))
            }
            nudged = false
            const fannedOut = await fanOutAll()
            let claimedCount = 0
            const room = Math.min(deps.batchSize, deps.concurrency - inflight.size)
            // While sends are in flight, wait for room for a good batch rather than claim a few rows at a time.
            if (
              room > 0 &&
              (inflight.size === 0 || room >= Math.ceil(Math.min(deps.batchSize, deps.concurrency) / 2))
            ) {
              const claimed = runsOf(await claim(room))
              claimedCount = claimed.length
              for (const run of claimed) {
                const p: Promise<void> = sendRun(
                  run,
                  (c) => {
                    queue.push(c)
                    void flush()
                  },
                  () => stopped,
                ).finally(() => inflight.delete(p))
                inflight.add(p)
              }
              if (claimed.length === room && inflight.size < deps.concurrency) continue
            }
            const busy = fannedOut > 0 || claimedCount > 0 || inflight.size > 0
            idleSleep = busy || nudged ? deps.pollMs : Math.min(idleSleep * 2, deps.idlePollMs ?? deps.pollMs)
            await sleep(idleSleep)
          } catch (err) {
            log.error({ err }, 'webhook worker step failed')
            await sleep(1000)
          }
        }
        purgeStop.abort()
        await Promise.allSettled([...inflight, purging])
        while (flushing || queue.length > 0) await flush()
      })()

      return async () => {
        stopped = true
        nudgeLoop = undefined
        wake?.()
        await loop
      }
    },
  }
}
