/** What the console links an exception to: the parcel, the scan-issues queue, the hand-over, a resend, the shelf's audit, the returns. */
export const NEXT_ACTIONS = [
  'open_package',
  'match_recipient',
  'hand_over_or_return',
  'resend_notification',
  'audit_shelf',
  'decide_return',
] as const
export type NextAction = (typeof NEXT_ACTIONS)[number]

/**
 * The kinds of exception (issue 30.3): a parcel that needs something done. The one list: a new
 * kind (say `return_proposed`) is one entry here, with its next action and where it comes from, and
 * a source in service.ts (tsc lists the place: SOURCES is a record over these kinds). Kinds and
 * actions are API: never renamed. The order is the order counts are listed in.
 */
export const EXCEPTION_KINDS = {
  unclaimed: {
    action: 'hand_over_or_return',
    about:
      'Waiting longer than `unclaimedDays` days (default 3) since it arrived. No event: it arises from time passing.',
  },
  unmatched_recipient: {
    action: 'match_recipient',
    about: 'Received from a label photo whose recipient was not chosen: an open scan issue. Event: `ScanIssueOpened`.',
  },
  unknown_format: {
    action: 'open_package',
    about:
      "Received with no known carrier: no carrier at all, or as an internal item under a number that is not one of mailroom's own (the console's answer to a scan in no carrier's format). Settled by setting its carrier.",
  },
  damaged: {
    action: 'open_package',
    about: 'Marked damaged (status DAMAGED or `damaged: true`). Event: `Exception`.',
  },
  recipient_departed: {
    action: 'hand_over_or_return',
    about:
      'Its recipient left (deactivated, or their move-out date passed) while it waited. Event: `RecipientDeparted`.',
  },
  notification_failed: {
    action: 'resend_notification',
    about:
      'A notification about it failed after its last attempt (the latest such failure). Settled by a resend. Event: `NotificationFailed`.',
  },
  missing_from_shelf: {
    action: 'audit_shelf',
    about:
      "Its shelf's latest audit did not find it, and it was not filed or changed since. Settled by filing it again, a later audit that finds it, or handing it over. Event: `MissingFromShelf`.",
  },
  return_proposed: {
    action: 'decide_return',
    about:
      "Waiting past its site's return deadline: a return to sender is proposed (the Returns screen returns it, keeps it waiting or looks again later). Settled by that decision or a hand-over. Event: `ReturnToSender` once returned; the proposal itself has none (it arises from time passing).",
  },
} as const satisfies Record<string, { action: NextAction; about: string }>

export type ExceptionKind = keyof typeof EXCEPTION_KINDS
export const KIND_NAMES = Object.keys(EXCEPTION_KINDS) as ExceptionKind[]

/** Where an exception comes from, besides its parcel: what the next action works on. */
export interface ExceptionRefs {
  scanIssueId?: string
  notificationId?: string
  contactId?: string
  auditId?: string
  shelfId?: string
}

/** One exception as a source finds it: its parcel, since when, and what it refers to. */
export interface Found {
  kind: ExceptionKind
  packageId: string
  since: Date
  detail?: string
  refs: ExceptionRefs
}

/** Oldest first; one parcel's exceptions in the kinds' order; then by parcel. */
export function byAge(a: Found, b: Found): number {
  return (
    a.since.getTime() - b.since.getTime() ||
    KIND_NAMES.indexOf(a.kind) - KIND_NAMES.indexOf(b.kind) ||
    (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0)
  )
}
