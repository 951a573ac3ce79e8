import type { PackageStatus } from './packages.schemas.js'

/** CONTRACT §4 tracking events per status reached. IN_LOCKER has only locker events. */
const TRACKING_EVENT: Partial<Record<string, string>> = {
  RECEIVED: 'Received',
  IN_TRANSIT: 'InTransit',
  OUT_FOR_DELIVERY: 'OutForDelivery',
  READY_FOR_PICKUP: 'ReadyForPickup',
  DELIVERED: 'Delivered',
  PICKED_UP: 'PickedUp',
  DAMAGED: 'Exception',
  RETURNED_TO_SENDER: 'ReturnToSender',
  ARCHIVED: 'Archived',
}

export interface Transition {
  previousStatus: string | null
  status: PackageStatus | string
  wasDamaged: boolean
  damaged: boolean
  previousLocker: { bank: string | null; unit: string | null }
  locker: { bank: string | null; unit: string | null }
}

/**
 * Which events one change produces, in order. Tracking: the event of the status reached; a second
 * OUT_FOR_DELIVERY in a row is a DeliveryAttempt; newly damaged is an Exception; anything else is
 * Updated. Locker: entering IN_LOCKER (or moving to another unit) is Deposited, leaving it PickedUp.
 */
export function eventsFor(t: Transition): Array<{ variant: 'tracking' | 'locker'; eventName: string }> {
  const out: Array<{ variant: 'tracking' | 'locker'; eventName: string }> = []
  const changed = t.previousStatus !== t.status
  let tracking: string
  if (t.status === 'OUT_FOR_DELIVERY' && t.previousStatus === 'OUT_FOR_DELIVERY') tracking = 'DeliveryAttempt'
  else if (changed && TRACKING_EVENT[t.status]) tracking = TRACKING_EVENT[t.status]!
  else if (t.damaged && !t.wasDamaged) tracking = 'Exception'
  else tracking = 'Updated'
  out.push({ variant: 'tracking', eventName: tracking })

  const inLocker = t.status === 'IN_LOCKER'
  const wasInLocker = t.previousStatus === 'IN_LOCKER'
  const moved = t.locker.bank !== t.previousLocker.bank || t.locker.unit !== t.previousLocker.unit
  if (inLocker && (!wasInLocker || moved)) out.push({ variant: 'locker', eventName: 'Deposited' })
  else if (wasInLocker && !inLocker) out.push({ variant: 'locker', eventName: 'PickedUp' })
  return out
}
