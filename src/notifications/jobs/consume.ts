import type { Db } from '../../platform/db/database.js'
import type { Trx } from '../../platform/db/transaction.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { consumeEvents, type ConsumedEvent } from '../../events/index.js'
import { notifiedContacts } from '../../contacts/index.js'
import { joinArrivalBatches, type Arrival, type BatchWanted } from '../store/arrivals.js'
import * as repo from '../store/notifications.js'
import { ARRIVAL_EVENT, planNotifications } from '../model/plan.js'
import { effectiveSettings } from '../model/settings.js'
import { findSettings } from '../store/settings.js'

// The notifications as a consumer of the outbox (events/cursors.ts): the package writes only write
// their events; here the arrivals and pickups among them become notification rows, and the cursor
// moves past them in the same transaction (a crash repeats nothing and loses nothing).

/** The cursor's name. */
export const CONSUMER = 'notifications' as const
/** Events read per transaction (then the rest of the last write's). */
const TAKE = 1000
/** Reads per pass, at most: a backlog after downtime is consumed over a few passes, with sends in between. */
const ROUNDS = 20

const groupBy = <T>(items: readonly T[], key: (item: T) => string) => {
  const groups = new Map<string, T[]>()
  for (const item of items) {
    const group = groups.get(key(item))
    if (group) group.push(item)
    else groups.set(key(item), [item])
  }
  return groups
}

type Settings = ReturnType<typeof effectiveSettings>

/**
 * Arrivals join their recipients' arrival batches: a batch opened here is due `arrivalBatchSeconds`
 * after its first arrival (the event's time), so one email per recipient per window holds; an
 * arrival finding its recipient's batch still open joins it.
 */
async function queueArrivals(
  trx: Trx,
  ids: IdGenerator,
  now: Date,
  arrivals: Arrival[],
  settings: Map<string, Settings>,
) {
  const batches: BatchWanted[] = []
  for (const [subId, ofSub] of groupBy(arrivals, (a) => a.sub_id))
    for (const [contactId, ofContact] of groupBy(ofSub, (a) => a.contact_id)) {
      const first = Math.min(...ofContact.map((a) => a.arrived_at.getTime()))
      batches.push({
        notification_id: ids('ntf_'),
        sub_id: subId,
        contact_id: contactId,
        next_attempt_at: new Date(first + settings.get(subId)!.arrivalBatchSeconds * 1000),
        created_at: new Date(first),
      })
    }
  await joinArrivalBatches(trx, batches, arrivals, now)
}

/** One PICKED_UP receipt per recipient for everything one write handed over to them, due at once. */
async function queueReceipts(trx: Trx, ids: IdGenerator, now: Date, subId: string, pickups: Map<string, string[]>) {
  const people = await notifiedContacts(trx, subId, [...pickups.keys()])
  const links: Parameters<typeof repo.linkPackages>[1] = []
  const receipts: repo.NewNotification[] = []
  for (const [contactId, packageIds] of pickups) {
    const c = people.get(contactId)
    if (!c || c.deleted || c.contact_type === 'SENDER') continue
    const notificationId = ids('ntf_')
    for (const packageId of packageIds)
      links.push({
        notification_id: notificationId,
        package_id: packageId,
        sub_id: subId,
        kind: 'PICKED_UP',
        step: 0,
        created_at: now,
      })
    receipts.push({
      notification_id: notificationId,
      sub_id: subId,
      kind: 'PICKED_UP',
      contact_id: contactId,
      to_address: c.email ?? '',
      step: 0,
      status: 'pending',
      next_attempt_at: now,
      created_at: now,
    })
  }
  await repo.insertNotifications(trx, receipts)
  await repo.linkPackages(trx, links)
}

/** The notification rows one read of events calls for (subscriptions with notifications off: none). */
async function handle(trx: Trx, ids: IdGenerator, now: Date, events: ConsumedEvent[]): Promise<void> {
  const settings = new Map<string, Settings>()
  for (const subId of new Set(events.map((e) => e.sub_id)))
    settings.set(subId, effectiveSettings(await findSettings(trx, subId)))
  const enabled = events.filter((e) => settings.get(e.sub_id)!.enabled)
  const arrivedAt = new Map(
    enabled.filter((e) => e.event_name === ARRIVAL_EVENT).map((e) => [`${e.sub_id}/${e.package_id}`, e.occurred_at]),
  )
  const arrivals: Arrival[] = []
  // A write is one transaction: its pickups for one recipient make one receipt (a pickup of three
  // parcels is one email), whatever else the read holds.
  for (const ofWrite of groupBy(enabled, (e) => e.tx).values()) {
    const planned = planNotifications(ofWrite)
    for (const [subId, bySub] of planned.arrivals)
      for (const [contactId, packageIds] of bySub)
        for (const packageId of packageIds)
          arrivals.push({
            sub_id: subId,
            package_id: packageId,
            contact_id: contactId,
            arrived_at: arrivedAt.get(`${subId}/${packageId}`)!,
          })
    for (const [subId, pickups] of planned.pickups) await queueReceipts(trx, ids, now, subId, pickups)
  }
  await queueArrivals(trx, ids, now, arrivals, settings)
}

/**
 * Consumes the outbox up to now (up to ROUNDS reads); any number of workers may call it at once: one
 * holds the cursor, the others return at once. Returns how many events were read. A write whose
 * notifications cannot be written is logged and left for the next pass (consumeEvents isolates it);
 * this pass stops there, so a write that keeps failing costs one isolation per pass, not per round.
 */
export async function consumePackageEvents(deps: {
  db: Db
  clock: Clock
  ids: IdGenerator
  log?: { error(obj: object, msg: string): void }
}): Promise<number> {
  const { db, clock, ids, log } = deps
  const onFailed = (err: unknown, events: ConsumedEvent[]) =>
    log?.error(
      { err, subId: events[0]?.sub_id, eventIds: events.map((e) => e.event_id) },
      'notifications of a write could not be written; its events wait for the next pass',
    )
  let total = 0
  for (let round = 0; round < ROUNDS; round++) {
    const step = await consumeEvents(db, CONSUMER, { limit: TAKE, now: clock.now(), onFailed }, (trx, events) =>
      handle(trx, ids, clock.now(), events),
    )
    if (step === undefined) return total
    total += step.read
    if (step.read < TAKE || step.failed > 0) return total
  }
  return total
}
