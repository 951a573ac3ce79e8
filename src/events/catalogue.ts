import type { WebhookVariant } from './variants.js'

/**
 * The event types of each variant (CONTRACT §4), with the change that emits each: the one home of
 * both. Names are API: never renamed. `eventId` is the type's stable identifier,
 * `<variant>.<eventName>`. Emitters are typed by these names (packages/model/events.ts, jobs.ts), so an
 * event that is not here does not compile.
 *
 * Tracking: Pitney Bowes' names first (PB-REFERENCE §5.1; clients written for PB subscribe to
 * them), then ours. One package change can emit several tracking events, in the order listed by
 * packages/model/events.ts; a change that emits none of the others emits `Updated`.
 */
const TRACKING = {
  Manifest:
    'An expected package was announced: added with status IN_TRANSIT, before it reaches any site. (Instead of InTransit for that add.)',
  Acceptance:
    'The package reached a site for the first time: the first change to a status other than IN_TRANSIT or ARCHIVED. For a package added as it arrives, the add itself; for an announced one, its arrival.',
  InTransit:
    'The package is moving between sites: status IN_TRANSIT reached (except the add of an announced package: Manifest).',
  DeliveryAttempt:
    'A delivery attempt failed: the package came back from OUT_FOR_DELIVERY to RECEIVED or READY_FOR_PICKUP, or was set OUT_FOR_DELIVERY again while it already was (instead of OutForDelivery).',
  OutForDelivery: 'The package left for delivery to its recipient: status OUT_FOR_DELIVERY reached.',
  Delivered: 'The package was handed to its recipient: status DELIVERED reached.',
  Exception:
    'The package was found damaged: status DAMAGED reached, or `damaged` newly set to true by any other change.',
  ReturnToSender: 'The package is returned to its sender: status RETURNED_TO_SENDER reached.',
  ReadyForPickup:
    'The package waits for its recipient to collect it: status READY_FOR_PICKUP or IN_LOCKER reached (the locker variant also sends Deposited).',
  PickupMissed:
    "The package was not collected from its locker within the configured number of days, its pickup reminder unanswered (sent with the locker variant's Expired, once per locker stay).",
  PickedUp: 'The recipient collected the package: status PICKED_UP reached.',
  Received: 'The package was received at a site: status RECEIVED reached (at its first arrival, after Acceptance).',
  Archived: 'The package was archived: status ARCHIVED reached.',
  Forwarded:
    'The package was forwarded to an address outside the subscription: status FORWARDED reached (a forward to another site of the subscription is an Updated, its activity naming the site).',
  Updated:
    'Any other change to the package (its fields, its location, its locker unit…): a change that emits none of the events above.',
  // Recipient notifications (src/notifications): one event per package of the notification, when the
  // worker has sent it (or recorded it suppressed: no SMTP, or the contact unsubscribed from email).
  // `data` is the package event data plus `notification` {notificationId, kind, channel, status, to,
  // packageIds, contact {contactId, name, email, phone}}: what an integration needs to send an SMS.
  RecipientNotified:
    'The recipient was told that packages arrived (notification kind ARRIVAL): one event per package of the email, with `data.notification`.',
  RecipientReminded:
    'The recipient was reminded of packages not collected yet (kind REMINDER, `data.notification.step`).',
  RecipientFinalNotice: 'The recipient was told the packages go back to their sender soon (kind FINAL_NOTICE).',
  RecipientPickupReceipt: 'The recipient was sent the receipt of a pickup (kind PICKED_UP).',
  NotificationFailed:
    "A notification about the package failed after its last attempt (an exception, issue 30.3): sent after the kind's own event (RecipientNotified…, whose `data.notification.status` is `failed`), with the same `data.notification`; a resend (POST /api/v1/notifications/{notificationId}/resend) settles it.",
  // The scan-issues queue (src/scanissues): a package received from a label photo whose recipient
  // was not chosen. `data` is the package event data plus `scanIssue` {scanIssueId, reason, status,
  // suggestions [{contactId, name, score}], contactId (when settled)}.
  ScanIssueOpened:
    "A label photo's recipient was not chosen and the package was put in the scan-issues queue, with `data.scanIssue.reason` (no_match, partial_match, several_matches, business) and its suggestions.",
  ScanIssueSettled:
    "A scan issue was settled: a clerk chose the recipient (`data.scanIssue.contactId`), which is now the package's receiver.",
  // The directory (src/directory/departures.ts): once per departure, for each parcel waiting then.
  RecipientDeparted:
    'The recipient left while the package waited for them: deactivated (by SCIM, LDAP, a roster or a clerk) or their move-out date reached. `data.departure` {contactId, name, reason: deactivated|moved-out, moveOutDate?}. The package needs a decision (forward, return); its pickup code keeps working until then.',
  // Shelf audits (src/shelves/audit-record.ts): an exception of issue 30.3, with the audit.
  MissingFromShelf:
    "A shelf audit did not find the package where its record says it waits, and the shelf's previous audit had not (or the package was changed since): once per such audit, written with it. `data.audit` {auditId, shelfId}. Filing it again, or a later audit that finds it, settles it.",
} as const

const LOCKER = {
  Deposited: 'The package was put in a locker unit (status IN_LOCKER, or moved to another unit).',
  PickedUp: 'The package left the locker.',
  PickupReminder: 'The package has waited in its locker for the configured number of hours (once per locker stay).',
  Expired: 'The package was not collected within the configured number of days (once per locker stay).',
} as const

export type TrackingEventName = keyof typeof TRACKING
// A variant without its list of events does not compile.
const CATALOGUE = { tracking: TRACKING, locker: LOCKER } as const satisfies Record<
  WebhookVariant,
  Readonly<Record<string, string>>
>

/** An event as an emitter names it: its variant and one of that variant's names. */
export type VariantEvent = {
  [V in WebhookVariant]: { variant: V; eventName: keyof (typeof CATALOGUE)[V] }
}[WebhookVariant]

/** Not subscribable: sent by POST /webhookConfig/{id}/test to any configuration. */
export const PING_EVENT = 'Ping'

export function eventNames(variant: WebhookVariant): string[] {
  return Object.keys(CATALOGUE[variant])
}

export function eventCatalogue(
  variant: WebhookVariant,
): Array<{ eventId: string; eventName: string; description: string }> {
  return Object.entries(CATALOGUE[variant]).map(([eventName, description]) => ({
    eventId: `${variant}.${eventName}`,
    eventName,
    description,
  }))
}

/** Which change emits each event, as a Markdown list (the OpenAPI description of GET /api/v1/events). */
export function describeEvents(variant: WebhookVariant): string {
  return eventCatalogue(variant)
    .map((e) => `- \`${e.eventName}\`: ${e.description}`)
    .join('\n')
}
