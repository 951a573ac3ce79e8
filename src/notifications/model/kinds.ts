import type { TrackingEventName } from '../../events/catalogue.js'

/** What a recipient is told. API: never renamed. */
export const NOTIFICATION_KINDS = ['ARRIVAL', 'REMINDER', 'FINAL_NOTICE', 'PICKED_UP'] as const
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number]

export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed', 'suppressed'] as const
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
