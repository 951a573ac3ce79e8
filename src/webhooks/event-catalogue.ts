import type { WebhookVariant } from './webhooks.module.js'

/**
 * The event types of each variant (CONTRACT §4). Names are API: never renamed. `eventId` is the
 * type's stable identifier, `<variant>.<eventName>`.
 */
const CATALOGUE: Record<WebhookVariant, ReadonlyArray<readonly [name: string, description: string]>> = {
  tracking: [
    ['Received', 'The package was received (status RECEIVED).'],
    ['InTransit', 'The package is moving between sites (status IN_TRANSIT).'],
    ['OutForDelivery', 'The package left for delivery to its recipient (status OUT_FOR_DELIVERY).'],
    ['ReadyForPickup', 'The package waits for its recipient to collect it (status READY_FOR_PICKUP).'],
    ['DeliveryAttempt', 'Another delivery attempt: OUT_FOR_DELIVERY again after a failed one.'],
    ['Delivered', 'The package was handed to its recipient (status DELIVERED).'],
    ['PickedUp', 'The recipient collected the package (status PICKED_UP).'],
    ['Exception', 'The package was marked damaged.'],
    ['ReturnToSender', 'The package is returned to its sender (status RETURNED_TO_SENDER).'],
    ['Archived', 'The package was archived.'],
    ['Updated', 'Any other change to the package.'],
  ],
  locker: [
    ['Deposited', 'The package was put in a locker unit (status IN_LOCKER, or moved to another unit).'],
    ['PickedUp', 'The package left the locker.'],
    ['PickupReminder', 'The package has waited in its locker for the configured number of hours (once per locker stay).'],
    ['Expired', 'The package was not collected within the configured number of days (once per locker stay).'],
  ],
}

/** Not subscribable: sent by POST /webhookConfig/{id}/test to any configuration. */
export const PING_EVENT = 'Ping'

export function eventNames(variant: WebhookVariant): string[] {
  return CATALOGUE[variant].map(([name]) => name)
}

export function eventCatalogue(variant: WebhookVariant): Array<{ eventId: string; eventName: string; description: string }> {
  return CATALOGUE[variant].map(([eventName, description]) => ({ eventId: `${variant}.${eventName}`, eventName, description }))
}
