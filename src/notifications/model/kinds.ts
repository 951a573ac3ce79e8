import type { TrackingEventName } from '../../events/index.js'

/** What a recipient is told. API: never renamed. */
export const NOTIFICATION_KINDS = ['ARRIVAL', 'REMINDER', 'FINAL_NOTICE', 'PICKED_UP'] as const
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number]

/** How a recipient is told (issue 29). API: never renamed. */
export const NOTIFICATION_CHANNELS = ['email', 'sms'] as const
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number]

/**
 * unconfirmed (issue 29): a text handed to its provider by a worker that stopped before the answer
 * was recorded; it may have been sent, and is not sent again.
 */
export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed', 'suppressed', 'unconfirmed'] as const
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number]

/** The tracking webhook event each kind is also published as (an integration sends SMS from it). */
export function webhookEventOf(kind: NotificationKind): TrackingEventName {
  switch (kind) {
    case 'ARRIVAL':
      return 'RecipientNotified'
    case 'REMINDER':
      return 'RecipientReminded'
    case 'FINAL_NOTICE':
      return 'RecipientFinalNotice'
    case 'PICKED_UP':
      return 'RecipientPickupReceipt'
    default: {
      const never: never = kind
      throw new Error(`unknown notification kind ${String(never)}`)
    }
  }
}
