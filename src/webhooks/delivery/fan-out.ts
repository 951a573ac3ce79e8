import type { Db } from '../../platform/db/database.js'
import { inTransaction, type Executor } from '../../platform/db/transaction.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { activeConfigsOf } from '../store/configs.js'
import { insertDeliveries, type NewFannedOutDelivery } from '../store/deliveries.js'
import { claimEvents, pendingFairShare, releaseEvents, undispatchedOf, type OutboxRow } from '../../events/index.js'
import type { WorkerLog } from './runs.js'

// The fan-out: outbox events into one delivery per configuration that subscribes to them.

/** Events one pass takes, at most: the oldest of every subscription's share. */
export const FANOUT_BATCH = 500
/**
 * One subscription's share of a pass. A backlog of one subscription (a burst with many
 * configurations) is fanned out a share per pass, and every other subscription's events go in
 * the same pass: they never wait behind it.
 */
export const FANOUT_PER_SUBSCRIPTION = 100
/**
 * Deliveries one call writes before it hands back to the worker's loop, which sends what is due
 * and then calls again: a huge backlog is fanned out in steps, never ahead of everyone's sends.
 */
const DELIVERIES_PER_CALL = 20_000
/** Deliveries per insert statement: each statement stays small, whatever a pass holds. */
const INSERT_CHUNK = 2_000

interface PassResult {
  dispatched: number
  deliveries: number
}

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

export function createFanOut(deps: { db: Db; clock: Clock; ids: IdGenerator; log?: WorkerLog }) {
  const { db, clock, ids, log } = deps

  /** These events into deliveries, crash-safely: the deliveries and dispatched_at commit together. */
  async function fanOutEvents(eventIds: string[]): Promise<PassResult> {
    return inTransaction(db, async (trx) => {
      const now = clock.now()
      const claimed = await claimEvents(trx, eventIds, now)
      if (claimed.length === 0) return { dispatched: 0, deliveries: 0 }
      const events = await inPackageOrder(trx, claimed)
      const rows = await deliveriesOf(trx, events, now)
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) await insertDeliveries(trx, rows.slice(i, i + INSERT_CHUNK))
      return { dispatched: events.length, deliveries: rows.length }
    })
  }

  async function deliveriesOf(trx: Executor, events: OutboxRow[], now: Date): Promise<NewFannedOutDelivery[]> {
    const bySub = new Map<string, Awaited<ReturnType<typeof activeConfigsOf>>>()
    for (const c of await activeConfigsOf(trx, [...new Set(events.map((e) => e.sub_id))])) {
      bySub.set(c.sub_id, [...(bySub.get(c.sub_id) ?? []), c])
    }
    const rows: NewFannedOutDelivery[] = []
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
          // The retry window starts at the first attempt (the claim sets give_up_at): held behind an
          // earlier event of its package, this one may wait long before that.
          next_attempt_at: now,
          created_at: now,
        })
      }
    }
    return rows
  }

  /**
   * Fans these events out; a group that fails is split and each part tried on its own: first by
   * subscription, then in halves, down to the one event that fails. That event stays in the
   * outbox (with its package's later events held behind it) and is logged; every other
   * subscription's, and its own other packages', deliveries are written.
   */
  async function fanOutIsolated(events: Array<{ event_id: string; sub_id: string }>): Promise<PassResult> {
    try {
      return await fanOutEvents(events.map((e) => e.event_id))
    } catch (err) {
      const subs = [...new Set(events.map((e) => e.sub_id))]
      const parts =
        subs.length > 1
          ? subs.map((sub) => events.filter((e) => e.sub_id === sub))
          : events.length > 1
            ? [events.slice(0, events.length >> 1), events.slice(events.length >> 1)]
            : []
      if (parts.length === 0) {
        log?.error(
          { err, eventId: events[0]?.event_id, subId: events[0]?.sub_id },
          'webhook fan-out of an event failed',
        )
        return { dispatched: 0, deliveries: 0 }
      }
      const total = { dispatched: 0, deliveries: 0 }
      for (const part of parts) {
        const r = await fanOutIsolated(part)
        total.dispatched += r.dispatched
        total.deliveries += r.deliveries
      }
      return total
    }
  }

  /** Gives back the claimed events that must wait for an earlier event of their package. */
  async function inPackageOrder(trx: Executor, claimed: OutboxRow[]): Promise<OutboxRow[]> {
    const waiting = await undispatchedOf(trx, [...new Set(claimed.map((e) => e.package_id))])
    if (waiting.length === 0) return claimed
    const ready = readyToFanOut(claimed, waiting)
    const readyIds = new Set(ready.map((e) => e.event_id))
    await releaseEvents(
      trx,
      claimed.filter((e) => !readyIds.has(e.event_id)).map((e) => e.event_id),
    )
    return ready
  }

  /** One pass: every subscription's share of its oldest undispatched events. */
  async function fanOutPass(): Promise<PassResult & { more: boolean }> {
    const picked = await pendingFairShare(db, FANOUT_PER_SUBSCRIPTION, FANOUT_BATCH)
    if (picked.length === 0) return { more: false, dispatched: 0, deliveries: 0 }
    const perSub = new Map<string, number>()
    for (const e of picked) perSub.set(e.sub_id, (perSub.get(e.sub_id) ?? 0) + 1)
    // More may wait only if the pass was full, or a subscription had more than its share.
    const more = picked.length === FANOUT_BATCH || [...perSub.values()].some((n) => n === FANOUT_PER_SUBSCRIPTION)
    return { more, ...(await fanOutIsolated(picked)) }
  }

  async function fanOutAll(): Promise<number> {
    let total = 0
    let deliveries = 0
    for (;;) {
      const pass = await fanOutPass()
      total += pass.dispatched
      deliveries += pass.deliveries
      // Held-back events come first in the next pass: go on only while passes are full and moving.
      if (!pass.more || pass.dispatched === 0 || deliveries >= DELIVERIES_PER_CALL) return total
    }
  }

  return { fanOutAll, fanOutPass }
}
