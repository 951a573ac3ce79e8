/**
 * The status vocabulary of a package, declared once: the write schema, the search filter, the
 * rules and the events are typed from it. Statuses are API: never renamed.
 */
export const PACKAGE_STATUSES = [
  'RECEIVED',
  'IN_TRANSIT',
  'OUT_FOR_DELIVERY',
  'READY_FOR_PICKUP',
  'IN_LOCKER',
  'DELIVERED',
  'PICKED_UP',
  'DAMAGED',
  'RETURNED_TO_SENDER',
  'ARCHIVED',
  // Issue 30.2: forwarded by a clerk to an address outside the subscription; its wait ends here.
  'FORWARDED',
] as const
export type PackageStatus = (typeof PACKAGE_STATUSES)[number]

/** Statuses that hand the package over: they set deliveryTime and deliveryClerk, and need givenTo. */
export const HANDED_OVER = ['DELIVERED', 'PICKED_UP'] as const satisfies readonly PackageStatus[]

/** Statuses of a package that is done with (the search filter's UNDELIVERED is every other one, CONTRACT §3). */
export const FINISHED = [
  'DELIVERED',
  'PICKED_UP',
  'RETURNED_TO_SENDER',
  'ARCHIVED',
  'FORWARDED',
] as const satisfies readonly PackageStatus[]

/**
 * Statuses of a package that is not waiting to be collected (issue 17.4): done with, or announced
 * and not arrived. Every other status, on a package not archived, is waiting: it has a pickup
 * code and a pickup may hand it over.
 */
export const NOT_WAITING = [...FINISHED, 'IN_TRANSIT'] as const satisfies readonly PackageStatus[]

/** Statuses of a package that has not reached a site yet (or never will): no Acceptance. */
export const NOT_AT_A_SITE = ['IN_TRANSIT', 'ARCHIVED'] as const satisfies readonly PackageStatus[]

/** Back from OUT_FOR_DELIVERY to one of these: the delivery attempt failed. */
export const UNDELIVERED_RETURN = ['RECEIVED', 'READY_FOR_PICKUP'] as const satisfies readonly PackageStatus[]

export const isStatus = (s: string): s is PackageStatus => (PACKAGE_STATUSES as readonly string[]).includes(s)

/** `status` is one of `set` (for a status read from a row, typed as text). */
export const isOneOf = (set: readonly PackageStatus[], status: string | null | undefined): boolean =>
  status !== null && status !== undefined && (set as readonly string[]).includes(status)
