import type { Executor } from '../../platform/db/transaction.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { queueArrivals } from '../store/arrivals.js'
import * as repo from '../store/notifications.js'
import { effectiveSettings } from './settings.js'
import { findSettings } from '../store/settings.js'

/** The part of a package outbox event the notifications read. */
export interface ObservedEvent {
  sub_id: string
  package_id: string
  variant: string
  event_name: string
  /** JSON text (as the outbox row is written) or the object. */
  data: unknown
}

/** What the events of one write ask for: arrivals and pickups per subscription and recipient. */
export interface Planned {
  arrivals: Map<string, Map<string, string[]>>
  pickups: Map<string, Map<string, string[]>>
}

const receiverOf = (data: unknown): string | undefined => {
  const d = (typeof data === 'string' ? JSON.parse(data) : data) as { receiver?: { contactId?: unknown } } | null
  const id = d?.receiver?.contactId
  return typeof id === 'string' ? id : undefined
}

const push = (m: Map<string, Map<string, string[]>>, subId: string, contactId: string, packageId: string) => {
  const bySub = m.get(subId) ?? new Map<string, string[]>()
  m.set(subId, bySub)
  const list = bySub.get(contactId) ?? []
  bySub.set(contactId, list)
  if (!list.includes(packageId)) list.push(packageId)
}

/**
 * Pure: which notifications a write's events call for. An arrival is the package's first reach of
 * a site (tracking `Acceptance`); a pickup is `Delivered` or `PickedUp`. Packages without a
 * receiver are nobody's to tell. Every package a write hands over to one recipient goes into one
 * PICKED_UP (a pickup of three parcels is one receipt).
 */
export function planNotifications(events: readonly ObservedEvent[]): Planned {
  const planned: Planned = { arrivals: new Map(), pickups: new Map() }
  for (const e of events) {
    if (e.variant !== 'tracking') continue
    const into =
      e.event_name === 'Acceptance'
        ? planned.arrivals
        : e.event_name === 'Delivered' || e.event_name === 'PickedUp'
          ? planned.pickups
          : undefined
    if (!into) continue
    const receiver = receiverOf(e.data)
    if (receiver) push(into, e.sub_id, receiver, e.package_id)
  }
  return planned
}

/**
 * The packages domain's `observeEvents`: writes the notification rows a change calls for in the
 * change's own transaction (the outbox: a committed change always has its notifications, a rolled
 * back one never does). Arrivals are queued, and the worker puts them into the recipient's open
 * batch, due `arrivalBatchSeconds` after the first (arrivals.ts); pickups are due at once. Whether and where each is sent is decided when it is sent.
 */
export function createObserver(deps: { clock: Clock; ids: IdGenerator }) {
  const { clock, ids } = deps
  return async (trx: Executor, events: readonly ObservedEvent[]): Promise<void> => {
    const planned = planNotifications(events)
    if (planned.arrivals.size === 0 && planned.pickups.size === 0) return
    const now = clock.now()
    // Arrivals, the common case: one queued row each, gathered into the recipients' batches by the
    // worker (arrivals.ts). Nothing shared is locked: a recipient's adds do not wait for each other.
    await queueArrivals(
      trx,
      [...planned.arrivals].flatMap(([subId, bySub]) =>
        [...bySub].flatMap(([contactId, packageIds]) =>
          packageIds.map((packageId) => ({
            sub_id: subId,
            package_id: packageId,
            contact_id: contactId,
            arrived_at: now,
          })),
        ),
      ),
    )
    for (const [subId, pickups] of planned.pickups) {
      const settings = effectiveSettings(await findSettings(trx, subId))
      if (!settings.enabled) continue
      const people = await repo.recipients(trx, subId, [...pickups.keys()])
      const links: Parameters<typeof repo.linkPackages>[1] = []
      const receipts = [...pickups].flatMap(([contactId, packageIds]) => {
        const c = people.get(contactId)
        if (!c || c.deleted || c.contact_type === 'SENDER') return []
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
        return [
          {
            notification_id: notificationId,
            sub_id: subId,
            kind: 'PICKED_UP' as const,
            contact_id: contactId,
            to_address: c.email ?? '',
            step: 0,
            status: 'pending' as const,
            next_attempt_at: now,
            created_at: now,
          },
        ]
      })
      await repo.insertNotifications(trx, receipts)
      await repo.linkPackages(trx, links)
    }
  }
}
