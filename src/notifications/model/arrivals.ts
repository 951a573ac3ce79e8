import type { Db } from '../../platform/db/database.js'
import { inTransaction } from '../../platform/db/transaction.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { joinArrivalBatches, takeArrivals, type Arrival, type BatchWanted } from '../store/arrivals.js'
import { effectiveSettings } from './settings.js'
import { findSettings } from '../store/settings.js'

const groupBy = <T>(items: readonly T[], key: (item: T) => string) => {
  const groups = new Map<string, T[]>()
  for (const item of items) {
    const group = groups.get(key(item))
    if (group) group.push(item)
    else groups.set(key(item), [item])
  }
  return groups
}

/** Arrivals taken per transaction. */
const TAKE = 1000
/** Takes per pass, at most (see gatherArrivals). */
const GATHER_ROUNDS = 20

/**
 * Gathers the queued arrivals (observe.ts) into their recipients' arrival batches, before the
 * worker claims what is due: a batch opened here is due `arrivalBatchSeconds` after its first
 * arrival, as if the add had opened it, so one email per recipient per window still holds; an
 * arrival finding its recipient's batch still open joins it. Taking, joining and deleting commit
 * together (a failure leaves the queue as it was; any number of workers may gather at once: a
 * queued arrival is taken by one). Arrivals of a subscription with notifications off are dropped.
 * Returns how many arrivals were taken.
 */
export async function gatherArrivals(deps: { db: Db; clock: Clock; ids: IdGenerator }): Promise<number> {
  const { db, clock, ids } = deps
  let total = 0
  let rounds = 0
  for (;;) {
    const taken = await inTransaction(db, async (trx) => {
      const arrivals = await takeArrivals(trx, TAKE)
      if (arrivals.length === 0) return 0
      const bySub = groupBy(arrivals, (a) => a.sub_id)
      const kept: Arrival[] = []
      const batches: BatchWanted[] = []
      for (const [subId, ofSub] of bySub) {
        const settings = effectiveSettings(await findSettings(trx, subId))
        if (!settings.enabled) continue
        kept.push(...ofSub)
        for (const [contactId, ofContact] of groupBy(ofSub, (a) => a.contact_id)) {
          const first = Math.min(...ofContact.map((a) => a.arrived_at.getTime()))
          batches.push({
            notification_id: ids('ntf_'),
            sub_id: subId,
            contact_id: contactId,
            next_attempt_at: new Date(first + settings.arrivalBatchSeconds * 1000),
            created_at: new Date(first),
          })
        }
      }
      await joinArrivalBatches(trx, batches, kept, clock.now())
      return arrivals.length
    })
    total += taken
    // At most GATHER_ROUNDS takes per pass: a backlog after downtime is gathered over a few passes,
    // with claims of what is due in between.
    if (taken < TAKE || ++rounds >= GATHER_ROUNDS) return total
  }
}
