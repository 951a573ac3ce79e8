// The package statuses the screens ask about, derived from the server's own vocabulary
// (/console/vocabulary.js, generated from src/packages/model/statuses.ts): the console keeps no copy.
import { PACKAGE_STATUSES, HANDED_OVER, FINISHED, NOT_WAITING } from './vocabulary.js'

export { PACKAGE_STATUSES, FINISHED }

/** Waiting to be collected (issue 17.4): what the hand-over offers and the dashboard counts. */
export const WAITING = PACKAGE_STATUSES.filter((s) => !NOT_WAITING.includes(s))

/** A search's status filter for any of `statuses` (the search takes a comma list). */
export const statusFilter = (statuses) => statuses.join(',')

/** Handed over (DELIVERED, PICKED_UP): the dashboard's "handed over today". */
export const HANDED_OVER_FILTER = statusFilter(HANDED_OVER)

/**
 * The search filter's word for "not done with" (CONTRACT §3): every status but FINISHED. A keyword
 * of the search, not a status, so the vocabulary does not list it.
 */
export const UNDELIVERED = 'UNDELIVERED'
