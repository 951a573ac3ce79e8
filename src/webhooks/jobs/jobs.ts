import { performance } from 'node:perf_hooks'
import type { Db } from '../../platform/db/database.js'
import { inTransaction } from '../../platform/db/transaction.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { type VariantEvent, enqueueEvents, markDispatched } from '../../events/index.js'
import { configsToSweep, endIdleStreaks, endSweeps, purgeDeletedConfigs } from '../store/configs.js'
import { closeUnsendable, purgeDeliveries } from '../store/deliveries.js'
import { dueLockerStays, nextSequences } from '../../packages/index.js'
import { tryJobLock } from '../../platform/jobs/lock.js'
import { lastRestore, recordHeld } from '../../platform/jobs/held-work.js'

export interface JobsDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  lockerReminderHours: number
  lockerExpiryDays: number
  retentionDays: number
  /** Deliveries deleted per purge transaction; default PURGE_BATCH. */
  purgeBatch?: number
  /** Wall time one purge run may take before it yields to the next; default PURGE_BUDGET_MS. */
  purgeBudgetMs?: number
}

const LOCKER_BATCH = 200
const SWEEP_CONFIGS = 100
const SWEEP_BATCH = 5_000
/**
 * A configuration's sweep ends this long after it was asked for, at the earliest: a fan-out or a
 * manual retry that read the configuration before the change may still commit a delivery to it.
 */
export const SWEEP_SETTLE_MS = 5 * 60_000
/**
 * Short transactions (each a fraction of a second on PostgreSQL), so the purge holds few locks and
 * leaves vacuum free to work; as many as fit in the budget, until nothing old is left. At 2,000 per
 * batch the purge deletes tens of thousands of deliveries a second, far beyond the 1,000 a second a
 * busy deployment creates.
 */
export const PURGE_BATCH = 2_000
export const PURGE_BUDGET_MS = 20_000
export const PURGE_EVERY_MS = 60_000

export interface ScheduledJobs {
  /** The locker jobs and the sweep of unsendable deliveries; returns the number of locker events written. */
  run(): Promise<number>
  /**
   * The retention purge, when due: batches until nothing is left, the budget is spent or `signal`
   * aborts; returns the number of deliveries deleted. Long-running: the worker loop does not wait for it.
   */
  purge(signal?: AbortSignal): Promise<number>
}

/**
 * The durable scheduled jobs of the worker loop. Durable because they keep no state of their own:
 * each run derives what is due from the database, so a job missed while no worker ran happens at
 * the next run. Safe across processes: each holds a transaction-scoped advisory lock, and the
 * locker jobs also lock the packages they write events for.
 */
export function createJobs(deps: JobsDeps): ScheduledJobs {
  const { db, clock, ids } = deps
  const purgeBatch = deps.purgeBatch ?? PURGE_BATCH
  const purgeBudgetMs = deps.purgeBudgetMs ?? PURGE_BUDGET_MS
  let nextPurgeAt = 0

  /**
   * One locker event per package stay: PickupReminder after N hours, Expired after N days. An
   * expiry is the pickup reminder gone unanswered: tracking subscribers hear of it as PickupMissed.
   */
  async function lockerPass(eventName: 'PickupReminder' | 'Expired', afterMs: number): Promise<number> {
    const emitted: VariantEvent[] =
      eventName === 'Expired'
        ? [
            { variant: 'locker', eventName },
            { variant: 'tracking', eventName: 'PickupMissed' },
          ]
        : [{ variant: 'locker', eventName }]
    let written = 0
    let heldBatch = false
    for (;;) {
      const n = await inTransaction(db, async (trx) => {
        heldBatch = false
        if (!(await tryJobLock(trx, 'locker'))) return 0
        const now = clock.now()
        // An event that became due before this database was restored was sent by the original: the
        // restored copy writes it held, for the operator's decision (docs/backup.md), before the rest.
        const restore = await lastRestore(trx)
        const before = restore && new Date(Math.min(now.getTime(), restore.restoredAt.getTime()) - afterMs)
        let stays = before ? await dueLockerStays(trx, eventName, before, LOCKER_BATCH) : []
        const held = (heldBatch = stays.length > 0)
        if (!held) stays = await dueLockerStays(trx, eventName, new Date(now.getTime() - afterMs), LOCKER_BATCH)
        const eventIds: string[] = []
        const sequences = await nextSequences(
          trx,
          stays.map((s) => s.package_id),
          emitted.length,
        )
        await enqueueEvents(
          trx,
          stays.flatMap((s) =>
            emitted.map((e, i) => {
              const sequence = sequences.get(s.package_id)! + i
              const eventId = ids('evt_')
              eventIds.push(eventId)
              return {
                eventId,
                subId: s.sub_id,
                packageId: s.package_id,
                ...e,
                sequence,
                occurredAt: now,
                // The stay's picture as it was deposited, with this event's sequence and when the stay began.
                data: {
                  ...s.deposited_data,
                  sequence,
                  currentStatus: 'IN_LOCKER',
                  previousStatus: 'IN_LOCKER',
                  depositedAt: s.deposited_at.toISOString(),
                },
              }
            }),
          ),
        )
        if (held) {
          // Held as the restore holds the events not fanned out yet: marked dispatched, remembered in held_work.
          await markDispatched(trx, eventIds, now)
          await recordHeld(
            trx,
            { itemType: 'dispatch-event', kind: 'webhook', restoreId: restore!.restoreId, since: now },
            eventIds,
          )
        }
        return stays.length
      })
      written += n
      if (n < LOCKER_BATCH && !heldBatch) return written
    }
  }

  /**
   * Closes the pending deliveries the claim will never pick, configuration by configuration, for
   * the configurations that asked for it (deleted, set in-active or disabled, events dropped while
   * a delivery was in flight). Each statement stands alone: nothing here holds locks for long.
   */
  async function sweep(): Promise<void> {
    const now = clock.now()
    let after: { at: Date; configId: string } | undefined
    for (;;) {
      const page = await configsToSweep(db, SWEEP_CONFIGS, after)
      if (page.length === 0) return
      const configIds = page.map((c) => c.config_id)
      let closed: number
      do closed = await closeUnsendable(db, configIds, now, SWEEP_BATCH)
      while (closed === SWEEP_BATCH)
      await endSweeps(db, configIds, new Date(now.getTime() - SWEEP_SETTLE_MS))
      // Nothing left to retry: a failure days from now starts a new streak.
      await endIdleStreaks(db, configIds)
      if (page.length < SWEEP_CONFIGS) return
      const last = page.at(-1)!
      after = { at: last.sweep_requested_at, configId: last.config_id }
    }
  }

  /** Deliveries (and their attempts) untouched for retentionDays, then the deleted configurations they leave empty. */
  async function purgeOld(signal?: AbortSignal): Promise<number> {
    const cutoff = new Date(clock.now().getTime() - deps.retentionDays * 24 * 3600_000)
    const deadline = performance.now() + purgeBudgetMs
    let deleted = 0
    for (;;) {
      // The lock is per batch: one process purges at a time, and another takes over between batches when this one stops.
      const n = await inTransaction(db, async (trx) =>
        (await tryJobLock(trx, 'purge')) ? purgeDeliveries(trx, cutoff, purgeBatch) : -1,
      )
      if (n < 0) return deleted
      deleted += n
      if (n < purgeBatch) break
      if (performance.now() >= deadline || signal?.aborted) return deleted
    }
    await inTransaction(db, async (trx) => {
      if (await tryJobLock(trx, 'purge')) await purgeDeletedConfigs(trx, cutoff)
    })
    return deleted
  }

  return {
    async run() {
      let written = await lockerPass('PickupReminder', deps.lockerReminderHours * 3600_000)
      written += await lockerPass('Expired', deps.lockerExpiryDays * 24 * 3600_000)
      await sweep()
      return written
    },

    async purge(signal) {
      if (clock.now().getTime() < nextPurgeAt) return 0
      nextPurgeAt = clock.now().getTime() + PURGE_EVERY_MS
      return purgeOld(signal)
    },
  }
}
