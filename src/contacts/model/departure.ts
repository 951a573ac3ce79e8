/**
 * Told, once the write committed, of recipients who have just left: deactivated, or moved out (a
 * move-out date reached). The directory's departures flag their waiting parcels (an event per
 * parcel); their pickup code keeps working until the parcels are handed over or returned. A
 * periodic sweep catches what this misses (a crash in between, a move-out date that passes).
 */
export type DepartureHook = (subId: string, contactIds: string[]) => Promise<void>

interface Presence {
  status: string
  move_out?: Date | string | null
}

/** Whether a contact is gone on `day` (YYYY-MM-DD): inactive, or its move-out date reached. */
export function isGone(c: Presence, day: string): boolean {
  if (c.status !== 'active') return true
  const out = c.move_out
  if (out === null || out === undefined) return false
  const d = typeof out === 'string' ? out.slice(0, 10) : out.toISOString().slice(0, 10)
  return d <= day
}

/** Whether the change from `before` to `after` (the columns written; absent ones unchanged) makes a departure. */
export function departed(before: Presence, after: Partial<Record<string, unknown>>, at: Date): boolean {
  const day = at.toISOString().slice(0, 10)
  const next: Presence = {
    status: (after.status as string | undefined) ?? before.status,
    move_out: after.move_out === undefined ? before.move_out : (after.move_out as string | null),
  }
  return !isGone(before, day) && isGone(next, day)
}

/**
 * The columns a write adds for a recipient who comes back (reactivated, move-out cleared or moved
 * later): the departure note cleared, so that a later departure is flagged afresh. Every writer
 * (SCIM, LDAP, roster, a clerk's edit) adds them.
 */
export function returnColumns(
  before: Presence,
  after: Partial<Record<string, unknown>>,
  at: Date,
): { departure_noted_at?: null } {
  const day = at.toISOString().slice(0, 10)
  const next: Presence = {
    status: (after.status as string | undefined) ?? before.status,
    move_out: after.move_out === undefined ? before.move_out : (after.move_out as string | null),
  }
  return isGone(before, day) && !isGone(next, day) ? { departure_noted_at: null } : {}
}
