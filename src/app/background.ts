import type { PeriodicTask } from '../platform/jobs/scheduler.js'
import { startScheduler } from '../platform/jobs/scheduler.js'
import { embeddedStatisticsTask } from '../platform/db/embedded-statistics.js'
import type { AppContext } from './context.js'
import { housekeepingTasks } from './housekeeping.js'

export interface BackgroundOptions {
  /** The job runners (webhook fan-out and delivery, notification emails) and their periodic jobs. */
  workers: boolean
  /** Signing-key rotation and pick-up: where tokens are issued (`serve`). */
  signingKeys: boolean
  log: (level: 'info' | 'error', msg: string, extra: Record<string, unknown>) => void
}

/**
 * A process's background work, in one place: the job runners and the one scheduler of every
 * periodic task (platform/jobs/scheduler.ts). A new periodic job is one more entry in `tasks`.
 * Returns a stop that ends the scheduler, lets in-flight sends finish and record, then closes the
 * outbound connections.
 */
export function startBackground(ctx: AppContext, opts: BackgroundOptions): () => Promise<void> {
  const tasks: PeriodicTask[] = [
    ...housekeepingTasks({
      db: ctx.db,
      clock: ctx.clock,
      images: ctx.receiving.images,
      log: (msg, extra) => opts.log('info', msg, extra),
    }),
    ...(opts.signingKeys ? [ctx.keys.periodicTask()] : []),
    ...(opts.workers ? [...ctx.webhooks.periodicTasks, ...ctx.notifications.periodicTasks] : []),
    ...(opts.workers ? ctx.directory.periodicTasks : []),
    ...(opts.workers ? [ctx.reportSummaryJob.periodicTask] : []),
    ...(opts.workers ? ctx.holds.periodicTasks : []),
    // PostgreSQL's autovacuum keeps planner statistics; the embedded engine has none (one process: workers or not).
    ...(ctx.database.engine === 'pglite' ? [embeddedStatisticsTask(ctx.db)] : []),
  ]
  const runners = opts.workers ? [ctx.webhooks.start(), ctx.notifications.start()] : []
  const stopTasks = startScheduler(tasks, {
    error: (obj: { err?: unknown; task?: string }, msg: string) =>
      opts.log('error', msg, { task: obj.task, err: obj.err instanceof Error ? obj.err.message : String(obj.err) }),
  })
  return async () => {
    await Promise.all([stopTasks(), ...runners.map((stop) => stop())])
    if (opts.workers) ctx.notifications.close() // the webhooks' runner stop closed its own pool
  }
}
