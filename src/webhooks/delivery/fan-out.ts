import type { Insertable } from 'kysely'
import type { Db } from '../../platform/db/database.js'
import { inTransaction } from '../../platform/db/transaction.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { activeConfigsOf } from '../store/configs.js'
import { insertDeliveries } from '../store/deliveries.js'
import { claimUndispatched, releaseEvents, undispatchedOf, type OutboxRow } from '../../events/store.js'
import type { WebhookDeliveryTable } from '../store/tables.js'

// The fan-out: outbox events into one delivery per configuration that subscribes to them.

const FANOUT_BATCH = 500

/**
 * The claimed events that may be fanned out now: those whose package has no earlier event still
 * waiting (held by a concurrent fan-out, or beyond this batch). Fanned out first, a later event
 * could be claimed and sent before the earlier one has a delivery to wait behind.
 */
export function readyToFanOut<T extends { package_id: string; sequence: number }>(
  claimed: T[],
  waiting: Array<{ package_id: string; sequence: number }>,
): T[] {
  const firstWaiting = new Map<string, number>()
  for (const w of waiting)
    if (w.sequence < (firstWaiting.get(w.package_id) ?? Infinity)) firstWaiting.set(w.package_id, w.sequence)
  return claimed.filter((e) => e.sequence < (firstWaiting.get(e.package_id) ?? Infinity))
}

export function createFanOut(deps: { db: Db; clock: Clock; ids: IdGenerator }) {
  const { db, clock, ids } = deps

  /** One batch of the outbox into deliveries, crash-safely: the deliveries and dispatched_at commit together. */
  async function fanOutBatch(): Promise<{ claimed: number; dispatched: number }> {
    return inTransaction(db, async (trx) => {
      const now = clock.now()
      const claimed = await claimUndispatched(trx, FANOUT_BATCH, now)
      if (claimed.length === 0) return { claimed: 0, dispatched: 0 }
      const events = await inPackageOrder(trx, claimed)
      const bySub = new Map<string, Awaited<ReturnType<typeof activeConfigsOf>>>()
      for (const c of await activeConfigsOf(trx, [...new Set(events.map((e) => e.sub_id))])) {
        bySub.set(c.sub_id, [...(bySub.get(c.sub_id) ?? []), c])
      }
      const rows: Insertable<WebhookDeliveryTable>[] = []
      for (const e of events) {
        for (const c of bySub.get(e.sub_id) ?? []) {
          // A configuration gets the events that occur once it exists, of its variant and its list.
          if (c.variant !== e.variant || !c.events.includes(e.event_name) || c.created_at > e.occurred_at) continue
          rows.push({
            delivery_id: ids('dlv_'),
            sub_id: e.sub_id,
            config_id: c.config_id,
            event_id: e.event_id,
            event_name: e.event_name,
            package_id: e.package_id,
            sequence: e.sequence,
            occurred_at: e.occurred_at,
            status: 'pending',
            attempts: 0,
            // The retry window starts at the first attempt (the claim sets give_up_at): held behind an
            // earlier event of its package, this one may wait long before that.
            next_attempt_at: now,
            give_up_at: null,
            created_at: now,
            updated_at: now,
          })
        }
      }
      await insertDeliveries(trx, rows)
      return { claimed: claimed.length, dispatched: events.length }
    })
  }

  /** Gives back the claimed events that must wait for an earlier event of their package. */
  async function inPackageOrder(trx: Parameters<typeof undispatchedOf>[0], claimed: OutboxRow[]): Promise<OutboxRow[]> {
    const waiting = await undispatchedOf(trx, [...new Set(claimed.map((e) => e.package_id))])
    if (waiting.length === 0) return claimed
    const ready = readyToFanOut(claimed, waiting)
    await releaseEvents(
      trx,
      claimed.filter((e) => !ready.includes(e)).map((e) => e.event_id),
    )
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

  return { fanOutAll }
}
