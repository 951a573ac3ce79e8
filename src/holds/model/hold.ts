/**
 * A recipient's hold (vacation, leave): whole days, `startDate` through `endDate` (UTC days), so a
 * hold covers [startDate 00:00Z, the day after endDate 00:00Z).
 */
export interface HoldSpan {
  startsAt: Date
  endsAt: Date
}

const DAY_MS = 86_400_000

/** The span of a hold given as days (`YYYY-MM-DD`, already validated as dates). */
export function spanOfDays(startDate: string, endDate: string): HoldSpan {
  const startsAt = new Date(`${startDate}T00:00:00.000Z`)
  return { startsAt, endsAt: new Date(new Date(`${endDate}T00:00:00.000Z`).getTime() + DAY_MS) }
}

/** The last day a hold covers (`YYYY-MM-DD`): the day of its last moment (a lifted hold ends mid-day). */
export const lastDayOf = (span: HoldSpan): string => new Date(span.endsAt.getTime() - 1).toISOString().slice(0, 10)
export const firstDayOf = (span: HoldSpan): string => span.startsAt.toISOString().slice(0, 10)

/** The hold in force at `now`, if any (the one ending last, when holds overlap). */
export function holdInForce<T extends HoldSpan>(holds: readonly T[], now: Date): T | undefined {
  let found: T | undefined
  for (const h of holds) if (h.startsAt <= now && h.endsAt > now && (!found || h.endsAt > found.endsAt)) found = h
  return found
}

/**
 * When a recipient's wait counts from, for reminders and for the return deadline: the wait began
 * at `since` (the arrival email, the parcel's arrival); a hold that began by `now` and ran past
 * `since` restarts it at the hold's end. While a hold is in force that end is in the future, so no
 * step measured from it is due: reminders pause, and after the hold they come back one step at a
 * time, each its usual hours after the hold's end, instead of every missed step at once.
 * holds/store/holds.ts `waitCountsFrom` is the same rule in SQL.
 */
export function waitClockStart(since: Date, holds: readonly HoldSpan[], now: Date): Date {
  let start = since
  for (const h of holds) if (h.startsAt <= now && h.endsAt > since && h.endsAt > start) start = h.endsAt
  return start
}
