/**
 * The one job runner: a lease queue's claim → run → record loop, whatever the jobs are (webhook
 * deliveries, emails). The discipline every queue registered here follows:
 *
 *  - `claim(limit)` takes due jobs with SELECT … FOR UPDATE SKIP LOCKED (any number of workers in
 *    any number of processes) and leases them (lease.ts) to this worker; it is asked for no more
 *    jobs than the runner has free slots, so every claimed job starts at once: no claimed job waits
 *    in line past its lease, and a worker killed at any moment leaves at most `concurrency` jobs
 *    to be run again (those in flight), never a whole batch;
 *  - `run(job)` does the job and records its outcome before it resolves (as soon as it is known,
 *    not per batch), only if the job is still this worker's ("settle if ours": a lease that ran out
 *    may have been claimed again);
 *  - a failed job is rescheduled with backoff.ts, never in a hot loop.
 */
export interface JobQueue<J> {
  /** Work to do before each claim (the webhooks' fan-out); returns how much it did. */
  prepare?(): Promise<number>
  claim(limit: number): Promise<J[]>
  run(job: J): Promise<void>
}

export interface RunnerOptions {
  /** Jobs in flight at once, at most: also the most a crash can repeat. */
  concurrency: number
  /** How long the loop sleeps when it found nothing. */
  pollMs: number
  /**
   * Longest sleep of a runner that keeps finding nothing: the sleep doubles from pollMs up to this
   * (default pollMs: no back-off). Only where every write is in this process (PGlite), which then
   * nudges the runner: elsewhere another process's writes would wait the longer sleep.
   */
  idlePollMs?: number
  log: { error(obj: object, msg: string): void }
  name: string
}

export interface JobRunner {
  /** Everything due now, to the end, `concurrency` at a time (tests step the runner with it); returns the jobs run. */
  drain(): Promise<number>
  /** The background loop; the returned stop lets the jobs in flight finish and record. */
  start(): () => Promise<void>
  /** Something was just written: an idle runner looks within pollMs, not after its longer sleep. */
  nudge(): void
}

export function createJobRunner<J>(queue: JobQueue<J>, opts: RunnerOptions): JobRunner {
  const { concurrency, pollMs, log } = opts
  let nudgeLoop: (() => void) | undefined

  const guarded = (job: J) =>
    queue.run(job).catch((err: unknown) => {
      // run() records its own failures; this is one that could not even be recorded: the lease runs out.
      log.error({ err }, `${opts.name}: a job failed before its outcome was recorded`)
    })

  return {
    async drain() {
      let ran = 0
      for (let round = 0; round < 10_000; round++) {
        await queue.prepare?.()
        const jobs = await queue.claim(concurrency)
        if (jobs.length === 0) break
        ran += jobs.length
        await Promise.all(jobs.map(guarded))
      }
      return ran
    },

    nudge() {
      nudgeLoop?.()
    },

    start() {
      let stopped = false
      const inflight = new Set<Promise<void>>()
      let idleSleep = pollMs
      let nudged = false
      let wake: (() => void) | undefined
      // A nudge cuts a long idle sleep down to pollMs after the last look, never shorter: under a
      // stream of writes the runner still looks once per pollMs, not once per write.
      let hurry: (() => void) | undefined
      nudgeLoop = () => {
        nudged = true
        hurry?.()
      }
      const sleep = (ms: number) =>
        new Promise<void>((resolve) => {
          const started = Date.now()
          const done = () => {
            clearTimeout(timer)
            wake = hurry = undefined
            resolve()
          }
          let timer = setTimeout(done, ms)
          wake = done
          hurry =
            ms <= pollMs
              ? undefined
              : () => {
                  clearTimeout(timer)
                  timer = setTimeout(done, Math.max(0, started + pollMs - Date.now()))
                  hurry = undefined
                }
        })

      const loop = (async () => {
        while (!stopped) {
          try {
            nudged = false
            const prepared = (await queue.prepare?.()) ?? 0
            const free = concurrency - inflight.size
            const jobs = free > 0 ? await queue.claim(free) : []
            for (const job of jobs) {
              const p: Promise<void> = guarded(job).finally(() => {
                inflight.delete(p)
                // A slot is free: claim the next job now, not after the sleep.
                wake?.()
              })
              inflight.add(p)
            }
            if (jobs.length > 0 && jobs.length === free) {
              // Full: wait for a slot (a finishing job wakes the loop).
              await sleep(pollMs)
              continue
            }
            const busy = prepared > 0 || jobs.length > 0 || inflight.size > 0
            idleSleep = busy || nudged ? pollMs : Math.min(idleSleep * 2, opts.idlePollMs ?? pollMs)
            await sleep(idleSleep)
          } catch (err) {
            log.error({ err }, `${opts.name}: runner step failed`)
            await sleep(1000)
          }
        }
        await Promise.allSettled([...inflight])
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
