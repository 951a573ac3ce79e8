/**
 * The one scheduler of periodic tasks (reminders, locker jobs, retention purges, housekeeping):
 * each task runs now and then every `everyMs`, one run at a time per process, never in the way of
 * the job runners. Tasks keep no state of their own: each run derives what is due from the
 * database, so a run missed while no process ran happens at the next one. Across processes, a task
 * that must not run twice at once takes `tryJobLock` (lock.ts, a transaction-scoped advisory lock)
 * in its own transactions; the others (deletes of what is due) only share the work.
 */
export interface PeriodicTask {
  name: string
  everyMs: number
  /** `signal` aborts when the scheduler stops: a long task (a purge) ends between batches. */
  run(signal: AbortSignal): Promise<unknown>
}

/**
 * Starts the tasks: each runs now and then every `everyMs` (a run still in progress when its time
 * comes again is not doubled). The returned stop aborts long tasks and waits for the runs in progress.
 */
export function startScheduler(
  tasks: PeriodicTask[],
  log: { error(obj: object, msg: string): void },
): () => Promise<void> {
  const stop = new AbortController()
  const running = new Map<string, Promise<void>>()
  const runTask = (task: PeriodicTask) => {
    if (running.has(task.name) || stop.signal.aborted) return
    const p = task
      .run(stop.signal)
      .then(
        () => undefined,
        (err: unknown) => log.error({ err, task: task.name }, `periodic task ${task.name} failed`),
      )
      .finally(() => running.delete(task.name))
    running.set(task.name, p)
  }
  const timers = tasks.map((task) => {
    runTask(task)
    const timer = setInterval(() => runTask(task), task.everyMs)
    timer.unref()
    return timer
  })
  return async () => {
    for (const t of timers) clearInterval(t)
    stop.abort()
    await Promise.allSettled([...running.values()])
  }
}
