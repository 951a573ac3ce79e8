import type { Insertable } from 'kysely'
import type { Db } from '../db/database.js'
import { inTransaction } from '../db/transaction.js'
import type { Clock } from '../shared/clock.js'
import type { IdGenerator } from '../shared/ids.js'
import { attemptDelivery, type AttemptDeps, type AttemptResult } from './deliver.js'
import type { ScheduledJobs } from './jobs.js'
import { batchStreak, failingTooLong, planRetry, type RetrySchedule } from './retry.js'
import type { WebhookAttemptTable, WebhookDeliveryTable } from './webhooks.tables.js'
import * as repo from './worker.repo.js'

export interface WorkerLog {
  info(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

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

/** A claimed delivery and what became of it: an attempt, or given back unsent (its run stopped before it). */
type Completion = { claimed: repo.ClaimedDelivery; result: AttemptResult } | { claimed: repo.ClaimedDelivery; result?: undefined }

const LEASE_MARGIN_SECONDS = 10
const FANOUT_BATCH = 500
const JOBS_EVERY_MS = 60_000
const FLUSH_BATCH = 500
const FLUSH_COALESCE_MS = 10
/** Deliveries of one package to one configuration sent in one claim, one after another (see claimDue). */
const RUN_MAX = 50

/**
 * A claim's deliveries as runs, each in sequence order. A run with a gap (a delivery that changed
 * between the claim's read and its update) ends before it: what follows the gap is given back.
 */
export function runsOf(claimed: repo.ClaimedDelivery[]): Array<{ run: repo.ClaimedDelivery[]; cut: repo.ClaimedDelivery[] }> {
  const byRun = new Map<string, repo.ClaimedDelivery[]>()
  for (const d of claimed) byRun.set(d.run_id, [...(byRun.get(d.run_id) ?? []), d])
  return [...byRun.values()].map((ds) => {
    ds.sort((a, b) => a.run_pos - b.run_pos)
    const gap = ds.findIndex((d, i) => d.run_pos !== i)
    return gap < 0 ? { run: ds, cut: [] } : { run: ds.slice(0, gap), cut: ds.slice(gap) }
  })
}

/**
 * The claimed events that may be fanned out now: those whose package has no earlier event still
 * waiting (held by a concurrent fan-out, or beyond this batch). Fanned out first, a later event
 * could be claimed and sent before the earlier one has a delivery to wait behind.
 */
export function readyToFanOut<T extends { package_id: string; sequence: number }>(claimed: T[], waiting: Array<{ package_id: string; sequence: number }>): T[] {
  const firstWaiting = new Map<string, number>()
  for (const w of waiting) if (w.sequence < (firstWaiting.get(w.package_id) ?? Infinity)) firstWaiting.set(w.package_id, w.sequence)
  return claimed.filter((e) => e.sequence < (firstWaiting.get(e.package_id) ?? Infinity))
}

export function createWorker(deps: WorkerDeps) {
  const { db, clock, ids, log, workerId } = deps

  /** One batch of the outbox into deliveries, crash-safely: the deliveries and dispatched_at commit together. */
  async function fanOutBatch(): Promise<{ claimed: number; dispatched: number }> {
    return inTransaction(db, async (trx) => {
      const now = clock.now()
      const claimed = await repo.claimUndispatched(trx, FANOUT_BATCH, now)
      if (claimed.length === 0) return { claimed: 0, dispatched: 0 }
      const events = await inPackageOrder(trx, claimed)
      const bySub = new Map<string, Awaited<ReturnType<typeof repo.activeConfigsOf>>>()
      for (const c of await repo.activeConfigsOf(trx, [...new Set(events.map((e) => e.sub_id))])) {
        bySub.set(c.sub_id, [...(bySub.get(c.sub_id) ?? []), c])
      }
      const rows: Insertable<WebhookDeliveryTable>[] = []
      for (const e of events) {
        for (const c of bySub.get(e.sub_id) ?? []) {
          // A configuration gets the events that occur once it exists, of its variant and its list.
          if (c.variant !== e.variant || !c.events.includes(e.event_name) || c.created_at > e.occurred_at) continue
          rows.push({
            delivery_id: ids('dlv_'), sub_id: e.sub_id, config_id: c.config_id, event_id: e.event_id, event_name: e.event_name,
            package_id: e.package_id, sequence: e.sequence, occurred_at: e.occurred_at, status: 'pending', attempts: 0,
            // The retry window starts at the first attempt (the claim sets give_up_at): held behind an
            // earlier event of its package, this one may wait long before that.
            next_attempt_at: now, give_up_at: null, created_at: now, updated_at: now,
          })
        }
      }
      await repo.insertDeliveries(trx, rows)
      return { claimed: claimed.length, dispatched: events.length }
    })
  }

  /** Gives back the claimed events that must wait for an earlier event of their package. */
  async function inPackageOrder(trx: Parameters<typeof repo.undispatchedOf>[0], claimed: repo.OutboxRow[]): Promise<repo.OutboxRow[]> {
    const waiting = await repo.undispatchedOf(trx, [...new Set(claimed.map((e) => e.package_id))])
    if (waiting.length === 0) return claimed
    const ready = readyToFanOut(claimed, waiting)
    await repo.releaseEvents(trx, claimed.filter((e) => !ready.includes(e)).map((e) => e.event_id))
    return ready
  }

  async function fanOutAll(): Promise<number> {
    let total = 0
    for (;;) {
      const { claimed, dispatched } = await fanOutBatch()
      total += dispatched
      // Held-back events come first in the next batch: go on only while batches are full and moving.
      if (claimed < FANOUT_BATCH || dispatched === 0) return total
    }
  }

  function claim(limit: number): Promise<repo.ClaimedDelivery[]> {
    const now = clock.now()
    return repo.claimDue(db, { now, limit, runMax: RUN_MAX, workerId, leaseMarginSeconds: LEASE_MARGIN_SECONDS, windowEnd: new Date(now.getTime() + deps.retry.windowMs) })
  }

  /**
   * Sends one run in order, each delivery after the previous one succeeded, calling `done` as each
   * is settled. What is left when one fails (it is retried first), when the lease would no longer
   * cover a send, or when the worker stops, is given back unsent.
   */
  async function sendRun({ run, cut }: { run: repo.ClaimedDelivery[]; cut: repo.ClaimedDelivery[] }, done: (c: Completion) => void, stopping: () => boolean = () => false): Promise<void> {
    let i = 0
    for (; i < run.length; i++) {
      const d = run[i]!
      if (i > 0 && (stopping() || clock.now().getTime() + d.timeout_seconds * 2000 > d.locked_until.getTime())) break
      const c = await attempt(d)
      done(c)
      if (!c.result.succeeded) {
        i++
        break
      }
    }
    for (const d of [...run.slice(i), ...cut]) done({ claimed: d })
  }

  async function attempt(d: repo.ClaimedDelivery): Promise<{ claimed: repo.ClaimedDelivery; result: AttemptResult }> {
    try {
      return { claimed: d, result: await attemptDelivery(d, deps) }
    } catch (err) {
      // Not the receiver's doing (a secret that no longer opens, a bug): recorded, retried, logged.
      log.error({ err, deliveryId: d.delivery_id }, 'webhook attempt failed unexpectedly')
      return { claimed: d, result: { startedAt: clock.now(), latencyMs: 0, statusCode: null, succeeded: false, errorClass: 'internal', error: 'internal error', responseBody: null, gone: false } }
    }
  }

  function outcomeOf(d: repo.ClaimedDelivery, r: AttemptResult, now: Date): repo.DeliveryOutcome {
    const base = { delivery_id: d.delivery_id, last_status_code: r.statusCode, delivered_at: null, next_attempt_at: now }
    if (r.succeeded) return { ...base, status: 'delivered', delivered_at: now, last_error: null }
    if (r.gone) return { ...base, status: 'failed', last_error: `${r.error}: the receiver is gone; configuration disabled` }
    const plan = planRetry({ attempt: d.attempts, now, giveUpAt: d.give_up_at, random: deps.random(), retryAfterMs: r.retryAfterMs, schedule: deps.retry })
    if (plan.retry) return { ...base, status: 'pending', next_attempt_at: plan.at, last_error: r.error }
    return { ...base, status: 'failed', last_error: `${r.error} (gave up after ${d.attempts} attempts)` }
  }

  /** Records a batch of attempts and their consequences in one transaction. */
  async function complete(items: Completion[]): Promise<void> {
    if (items.length === 0) return
    const now = clock.now()
    const attempts: Insertable<WebhookAttemptTable>[] = []
    const outcomes: repo.DeliveryOutcome[] = []
    const releases: repo.DeliveryRelease[] = []
    const answers = new Map<string, { successes: Date[]; failures: Date[] }>()
    const gone = new Set<string>()
    const gaveUp = new Set<string>()
    for (const { claimed: d, result: r } of items) {
      const row = { delivery_id: d.delivery_id, sub_id: d.sub_id, config_id: d.config_id }
      if (d.prev_locked_until) {
        attempts.push({
          ...row, attempt_id: ids('att_'), attempt_no: d.attempts - 1, started_at: d.prev_locked_until, succeeded: false, error_class: 'lease_expired',
          error: 'the worker making this attempt stopped before recording its outcome; the receiver may have got it',
        })
      }
      if (!r) {
        releases.push({ delivery_id: d.delivery_id, give_up_at: d.prev_give_up_at })
        continue
      }
      attempts.push({
        ...row, attempt_id: ids('att_'), attempt_no: d.attempts, started_at: r.startedAt, latency_ms: r.latencyMs, status_code: r.statusCode,
        succeeded: r.succeeded, error_class: r.errorClass, error: r.error, response_body: r.responseBody,
      })
      const outcome = outcomeOf(d, r, now)
      outcomes.push(outcome)
      const a = answers.get(d.config_id) ?? { successes: [], failures: [] }
      answers.set(d.config_id, a)
      ;(r.succeeded ? a.successes : a.failures).push(r.startedAt)
      if (r.gone) gone.add(d.config_id)
      else if (outcome.status === 'failed') gaveUp.add(d.config_id)
    }
    const streaks: repo.StreakUpdate[] = [...answers].map(([configId, a]) => {
      const s = batchStreak(a.successes, a.failures)
      return { configId, ...s, staleBefore: new Date((s.firstFailureAt ?? now).getTime() - deps.retry.windowMs) }
    })
    await inTransaction(db, async (trx) => {
      await repo.lockStreaks(trx, [...answers.keys()], streaks.filter((s) => s.firstFailureAt).map((s) => s.configId))
      await repo.insertAttempts(trx, attempts)
      await repo.recordOutcomes(trx, workerId, now, outcomes)
      await repo.releaseDeliveries(trx, workerId, releases)
      const failing = await repo.updateStreaks(trx, streaks)
      const disables = [
        ...[...gone].map((configId) => ({ configId, reason: 'gone' as const })),
        ...failing.filter((s) => !gone.has(s.config_id) && s.failing_since && failingTooLong(s.failing_since, now)).map((s) => ({ configId: s.config_id, reason: 'failing' as const })),
      ]
      await repo.disableConfigs(trx, disables, now)
      const disabled = new Set(disables.map((x) => x.configId))
      await repo.endIdleStreaks(trx, [...gaveUp].filter((c) => !disabled.has(c)))
    })
  }

  /** Sends the runs of `claimed` with at most `concurrency` in flight. */
  async function attemptAll(claimed: repo.ClaimedDelivery[]): Promise<Completion[]> {
    const runs = runsOf(claimed)
    const out: Completion[] = []
    let next = 0
    const lane = async () => {
      while (next < runs.length) await sendRun(runs[next++]!, (c) => out.push(c))
    }
    await Promise.all(Array.from({ length: Math.min(deps.concurrency, runs.length) }, lane))
    return out
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
          c.result.succeeded ? step.delivered++ : step.failed++
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

      const sleep = (ms: number) => new Promise<void>((resolve) => {
        const started = Date.now()
        const done = () => {
          clearTimeout(timer)
          wake = undefined
          hurry = undefined
          resolve()
        }
        let timer = setTimeout(done, ms)
        wake = done
        hurry = ms <= deps.pollMs ? undefined : () => {
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
              purging ??= deps.jobs.purge(purgeStop.signal)
                .catch((err: unknown) => log.error({ err }, 'webhook retention purge failed'))
                .finally(() => (purging = undefined))
            }
            nudged = false
            const fannedOut = await fanOutAll()
            let claimedCount = 0
            const room = Math.min(deps.batchSize, deps.concurrency - inflight.size)
            // While sends are in flight, wait for room for a good batch rather than claim a few rows at a time.
            if (room > 0 && (inflight.size === 0 || room >= Math.ceil(Math.min(deps.batchSize, deps.concurrency) / 2))) {
              const claimed = runsOf(await claim(room))
              claimedCount = claimed.length
              for (const run of claimed) {
                const p: Promise<void> = sendRun(run, (c) => {
                  queue.push(c)
                  void flush()
                }, () => stopped).finally(() => inflight.delete(p))
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
