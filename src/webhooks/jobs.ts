import type { Db } from '../db/database.js'
import { inTransaction } from '../db/transaction.js'
import type { Clock } from '../shared/clock.js'
import type { IdGenerator } from '../shared/ids.js'
import { enqueueEvents } from './outbox.js'
import * as repo from './jobs.repo.js'

export interface JobsDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  lockerReminderHours: number
  lockerExpiryDays: number
  retentionDays: number
}

const LOCKER_BATCH = 200
const PURGE_BATCH = 5_000
const PURGE_EVERY_MS = 3600_000

export interface ScheduledJobs {
  /** Runs every job that is due; returns the number of locker events written. */
  run(): Promise<number>
}

/**
 * The durable scheduled jobs of the worker loop. Durable because they keep no state of their own:
 * each run derives what is due from the database, so a job missed while no worker ran happens at
 * the next run. Safe across processes: each holds a transaction-scoped advisory lock, and the
 * locker jobs also lock the packages they write events for.
 */
export function createJobs(deps: JobsDeps): ScheduledJobs {
  const { db, clock, ids } = deps
  let nextPurgeAt = 0

  /** One locker event per package stay: PickupReminder after N hours, Expired after N days. */
  async function lockerPass(eventName: 'PickupReminder' | 'Expired', afterMs: number): Promise<number> {
    let written = 0
    for (;;) {
      const n = await inTransaction(db, async (trx) => {
        if (!(await repo.tryJobLock(trx, 'locker'))) return 0
        const now = clock.now()
        const stays = await repo.dueLockerStays(trx, eventName, new Date(now.getTime() - afterMs), LOCKER_BATCH)
        const sequences = await repo.nextSequences(trx, stays.map((s) => s.package_id))
        await enqueueEvents(trx, stays.map((s) => {
          const sequence = sequences.get(s.package_id)!
          return {
            eventId: ids('evt_'), subId: s.sub_id, packageId: s.package_id, variant: 'locker' as const, eventName, sequence, occurredAt: now,
            // The stay's picture as it was deposited, with this event's sequence and when the stay began.
            data: { ...s.deposited_data, sequence, currentStatus: 'IN_LOCKER', previousStatus: 'IN_LOCKER', depositedAt: s.deposited_at.toISOString() },
          }
        }))
        return stays.length
      })
      written += n
      if (n < LOCKER_BATCH) return written
    }
  }

  return {
    async run() {
      let written = await lockerPass('PickupReminder', deps.lockerReminderHours * 3600_000)
      written += await lockerPass('Expired', deps.lockerExpiryDays * 24 * 3600_000)
      await repo.sweepUnsendable(db, clock.now())
      if (clock.now().getTime() >= nextPurgeAt) {
        // Only one process purges at a time; the others skip until their next hour.
        await inTransaction(db, async (trx) => {
          if (await repo.tryJobLock(trx, 'purge')) await purgeWith(trx)
        })
        nextPurgeAt = clock.now().getTime() + PURGE_EVERY_MS
      }
      return written
    },
  }

  /** Deliveries (and their attempts) untouched for retentionDays; at most 20 batches an hour keeps each run short. */
  async function purgeWith(trx: Parameters<typeof repo.purgeDeliveries>[0]): Promise<void> {
    const cutoff = new Date(clock.now().getTime() - deps.retentionDays * 24 * 3600_000)
    for (let i = 0; i < 20; i++) {
      if ((await repo.purgeDeliveries(trx, cutoff, PURGE_BATCH)) < PURGE_BATCH) break
    }
    await repo.purgeDeletedConfigs(trx, cutoff)
  }
}
