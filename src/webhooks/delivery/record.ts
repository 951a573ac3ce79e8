import type { Insertable } from 'kysely'
import type { Db } from '../../platform/db/database.js'
import { inTransaction } from '../../platform/db/transaction.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { insertAttempts } from '../store/attempts.js'
import { disableConfigs, endIdleStreaks, lockStreaks, updateStreaks, type StreakUpdate } from '../store/configs.js'
import type { ClaimedDelivery } from '../store/deliveries-claim.js'
import { failPendingOf, recordOutcomes, type DeliveryOutcome } from '../store/deliveries.js'
import type { WebhookAttemptTable } from '../store/tables.js'
import type { AttemptResult } from './deliver.js'
import { batchStreak, failingTooLong, planRetry, type RetrySchedule } from './retry.js'
import type { Completion } from './runs.js'

// What the worker writes once attempts are made: the attempt log, each delivery's next state, and
// what the answers say about each receiver (failure streaks, configurations disabled).

/** Answers arriving within this long of each other are recorded in one transaction, not many. */
const FLUSH_COALESCE_MS = 10
const FLUSH_BATCH = 500

const DISABLED_WHY = {
  gone: 'configuration disabled: the receiver answered 410 Gone',
  failing: 'configuration disabled: every attempt failed for 5 days',
} as const

export function createRecorder(deps: {
  db: Db
  clock: Clock
  ids: IdGenerator
  workerId: string
  retry: RetrySchedule
  random: () => number
}) {
  const { db, clock, ids, workerId } = deps

  function outcomeOf(d: ClaimedDelivery, r: AttemptResult, now: Date): DeliveryOutcome {
    const base = {
      delivery_id: d.delivery_id,
      last_status_code: r.statusCode,
      delivered_at: null,
      next_attempt_at: now,
    }
    if (r.succeeded) return { ...base, status: 'delivered', delivered_at: now, last_error: null }
    if (r.gone)
      return { ...base, status: 'failed', last_error: `${r.error}: the receiver is gone; configuration disabled` }
    const plan = planRetry({
      attempt: d.attempts,
      now,
      giveUpAt: d.give_up_at,
      random: deps.random(),
      retryAfterMs: r.retryAfterMs,
      schedule: deps.retry,
    })
    if (plan.retry) return { ...base, status: 'pending', next_attempt_at: plan.at, last_error: r.error }
    return { ...base, status: 'failed', last_error: `${r.error} (gave up after ${d.attempts} attempts)` }
  }

  /** Records a batch of attempts and their consequences in one transaction. */
  async function complete(items: Completion[]): Promise<void> {
    if (items.length === 0) return
    const now = clock.now()
    const attempts: Insertable<WebhookAttemptTable>[] = []
    const outcomes: DeliveryOutcome[] = []
    const answers = new Map<string, { successes: Date[]; failures: Date[] }>()
    const gone = new Set<string>()
    const gaveUp = new Set<string>()
    for (const { claimed: d, result: r } of items) {
      const row = { delivery_id: d.delivery_id, sub_id: d.sub_id, config_id: d.config_id }
      if (d.prev_locked_until) {
        attempts.push({
          ...row,
          attempt_id: ids('att_'),
          attempt_no: d.attempts - 1,
          started_at: d.prev_locked_until,
          succeeded: false,
          error_class: 'lease_expired',
          error: 'the worker making this attempt stopped before recording its outcome; the receiver may have got it',
        })
      }
      attempts.push({
        ...row,
        attempt_id: ids('att_'),
        attempt_no: d.attempts,
        started_at: r.startedAt,
        latency_ms: r.latencyMs,
        status_code: r.statusCode,
        succeeded: r.succeeded,
        error_class: r.errorClass,
        error: r.error,
        response_body: r.responseBody,
      })
      const outcome = outcomeOf(d, r, now)
      outcomes.push(outcome)
      const a = answers.get(d.config_id) ?? { successes: [], failures: [] }
      answers.set(d.config_id, a)
      ;(r.succeeded ? a.successes : a.failures).push(r.startedAt)
      if (r.gone) gone.add(d.config_id)
      else if (outcome.status === 'failed') gaveUp.add(d.config_id)
    }
    const streaks: StreakUpdate[] = [...answers].map(([configId, a]) => {
      const s = batchStreak(a.successes, a.failures)
      return { configId, ...s, staleBefore: new Date((s.firstFailureAt ?? now).getTime() - deps.retry.windowMs) }
    })
    await inTransaction(db, async (trx) => {
      await lockStreaks(
        trx,
        [...answers.keys()],
        streaks.filter((s) => s.firstFailureAt).map((s) => s.configId),
      )
      await insertAttempts(trx, attempts)
      await recordOutcomes(trx, workerId, now, outcomes)
      const failing = await updateStreaks(trx, streaks)
      const disables = [
        ...[...gone].map((configId) => ({ configId, reason: 'gone' as const })),
        ...failing
          .filter((s) => !gone.has(s.config_id) && s.failing_since && failingTooLong(s.failing_since, now))
          .map((s) => ({ configId: s.config_id, reason: 'failing' as const })),
      ]
      for (const reason of ['gone', 'failing'] as const) {
        const configIds = disables.filter((x) => x.reason === reason).map((x) => x.configId)
        await disableConfigs(trx, configIds, reason, now)
        await failPendingOf(trx, configIds, DISABLED_WHY[reason], now)
      }
      const disabled = new Set(disables.map((x) => x.configId))
      await endIdleStreaks(
        trx,
        [...gaveUp].filter((c) => !disabled.has(c)),
      )
    })
  }

  const queue: Array<{ c: Completion; settled: (err?: Error) => void }> = []
  let flushing: Promise<void> | undefined

  function flush(): Promise<void> {
    flushing ??= (async () => {
      await new Promise((r) => setTimeout(r, FLUSH_COALESCE_MS))
      while (queue.length > 0) {
        const batch = queue.splice(0, FLUSH_BATCH)
        try {
          await complete(batch.map((x) => x.c))
          for (const x of batch) x.settled()
        } catch (err) {
          // The leases run out and the deliveries are sent again: at least once, never lost.
          const e = err instanceof Error ? err : new Error('recording webhook attempts failed')
          for (const x of batch) x.settled(e)
        }
      }
    })().finally(() => {
      flushing = undefined
      if (queue.length > 0) void flush()
    })
    return flushing
  }

  /**
   * Records one attempt as soon as its answer is in: resolves once it is committed (rejects when it
   * could not be). Answers that arrive together share one transaction.
   */
  function record(c: Completion): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      queue.push({
        c,
        settled: (err) => (err === undefined ? resolve() : reject(err)),
      })
      void flush()
    })
  }

  return { record }
}
