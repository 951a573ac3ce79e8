import type { TrackingEventName, VariantEvent } from '../../events/index.js'
import { isOneOf, isStatus, NOT_AT_A_SITE, UNDELIVERED_RETURN, type PackageStatus } from './statuses.js'

/**
 * The tracking event of each status reached (event-catalogue.ts says the same in words). Every
 * status chooses: a new status that is not mapped here does not compile.
 */
const STATUS_EVENT: Record<PackageStatus, TrackingEventName> = {
  RECEIVED: 'Received',
  IN_TRANSIT: 'InTransit',
  OUT_FOR_DELIVERY: 'OutForDelivery',
  READY_FOR_PICKUP: 'ReadyForPickup',
  // For a tracking subscriber a package in a locker waits to be collected; the locker variant says Deposited.
  IN_LOCKER: 'ReadyForPickup',
  DELIVERED: 'Delivered',
  PICKED_UP: 'PickedUp',
  DAMAGED: 'Exception',
  RETURNED_TO_SENDER: 'ReturnToSender',
  ARCHIVED: 'Archived',
  FORWARDED: 'Forwarded',
}

export interface Transition {
  /** null: the change is the add. */
  previousStatus: string | null
  status: string
  /** The package had reached a site before this change (see hasReachedSite). */
  wasAtSite: boolean
  wasDamaged: boolean
  damaged: boolean
  previousLocker: { bank: string | null; unit: string | null }
  locker: { bank: string | null; unit: string | null }
}

/** After a change to `status`, has the package reached a site (counting what it had before)? */
export function hasReachedSite(wasAtSite: boolean, status: string): boolean {
  return wasAtSite || !isOneOf(NOT_AT_A_SITE, status)
}

/** The tracking events of one change, in order (event-catalogue.ts describes each). */
function trackingEvents(t: Transition): TrackingEventName[] {
  const changed = t.previousStatus !== t.status
  // An add that is not at a site yet announces an expected package: Manifest stands for its InTransit.
  const announced = t.previousStatus === null && t.status === 'IN_TRANSIT'
  const out: TrackingEventName[] = announced ? ['Manifest'] : []
  if (!t.wasAtSite && hasReachedSite(false, t.status)) out.push('Acceptance')
  if (
    t.previousStatus === 'OUT_FOR_DELIVERY' &&
    (t.status === 'OUT_FOR_DELIVERY' || isOneOf(UNDELIVERED_RETURN, t.status))
  )
    out.push('DeliveryAttempt')
  if (changed && !announced && isStatus(t.status)) out.push(STATUS_EVENT[t.status])
  if (t.damaged && !t.wasDamaged && !out.includes('Exception')) out.push('Exception')
  return out.length > 0 ? out : ['Updated']
}

/**
 * Which events one change produces, in order: its tracking events, then its locker event
 * (entering IN_LOCKER or moving to another unit is Deposited, leaving it PickedUp).
 */
export function eventsFor(t: Transition): VariantEvent[] {
  const out: VariantEvent[] = trackingEvents(t).map((eventName) => ({ variant: 'tracking', eventName }))
  const inLocker = t.status === 'IN_LOCKER'
  const wasInLocker = t.previousStatus === 'IN_LOCKER'
  const moved = t.locker.bank !== t.previousLocker.bank || t.locker.unit !== t.previousLocker.unit
  if (inLocker && (!wasInLocker || moved)) out.push({ variant: 'locker', eventName: 'Deposited' })
  else if (wasInLocker && !inLocker) out.push({ variant: 'locker', eventName: 'PickedUp' })
  return out
}
