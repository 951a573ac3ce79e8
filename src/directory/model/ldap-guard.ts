/**
 * The mass-deactivation guard of the LDAP sync (docs/directory.md, "Mass deactivation"). A
 * directory that answers a search with nothing (a wrong base DN or filter, an account that lost
 * its read rights, an emptied OU) looks to a sync exactly like everyone having left; so does a
 * mapping whose id attribute no entry has. Such a run must not deactivate the facility's
 * recipients: it is refused, writes nothing, and waits for an admin to confirm it once.
 */

/** The share of active LDAP contacts one run may deactivate unless a setting says otherwise (percent). */
export const DEFAULT_MAX_DEACTIVATION_PERCENT = 10
/** The most the setting may allow: a run deactivating more than half the directory always needs a person. */
export const MAX_DEACTIVATION_PERCENT_LIMIT = 50
/** So few deactivations pass whatever the share (a small directory's ordinary leavers). */
export const ALWAYS_ALLOWED = 5

export type RefusalReason = 'empty_search' | 'too_many'

export interface Refusal {
  reason: RefusalReason
  deactivations: number
  allowed: number
}

export interface RunPlan {
  /** Entries the run found usable (an id, a name): the directory's view of who is there. */
  valid: number
  /** Contacts the run would deactivate. */
  deactivations: number
  /** The subscription's active contacts from LDAP before the run. */
  active: number
}

/** How many deactivations a run may make without confirmation. */
export const allowedDeactivations = (active: number, percent: number): number =>
  Math.max(ALWAYS_ALLOWED, Math.floor((active * percent) / 100))

/**
 * Why the run must not deactivate, if it must not. `confirmed`: the deactivations an admin
 * confirmed (those of the refused run they saw); a run making no more than that many goes ahead.
 */
export function deactivationRefusal(plan: RunPlan, percent: number, confirmed?: number): Refusal | undefined {
  const { deactivations } = plan
  if (deactivations === 0) return undefined
  if (confirmed !== undefined && deactivations <= confirmed) return undefined
  const allowed = allowedDeactivations(plan.active, percent)
  if (plan.valid === 0) return { reason: 'empty_search', deactivations, allowed: 0 }
  if (deactivations > allowed) return { reason: 'too_many', deactivations, allowed }
  return undefined
}

/** The refusal in words, for the run's `error` (the API and the console show it). */
export function describeRefusal(r: Refusal): string {
  return r.reason === 'empty_search'
    ? `Refused: the search found no usable entry, and this would deactivate all ${r.deactivations} contacts from LDAP. Check the base DN, filter and mapping; confirm the run if the directory really is empty.`
    : `Refused: this run would deactivate ${r.deactivations} contacts, more than the ${r.allowed} allowed at once (maxDeactivationPercent). Confirm the run if they really left.`
}
