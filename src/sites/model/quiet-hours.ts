import { Type } from '@sinclair/typebox'

/**
 * A site's quiet hours for texts (issue 29): texts due between `start` and `end` ('HH:MM', local to
 * the site; a start after the end spans midnight) wait until `end`. Set on a site, inherited by the
 * sites below it as its holding fee is; a site with none (and no ancestor with one) keeps the
 * facility's window (the SMS settings' `quietHours`).
 */
export interface QuietHours {
  start: string
  end: string
}

export const QUIET_HOURS_DESCRIPTION =
  'An extension to the vendor contract: when texts (SMS) to recipients of parcels waiting here are held: a text due between `start` and `end` (HH:MM, 24-hour, in the site’s time zone; 21:00–08:00 spans midnight) waits until `end`; `start` equal to `end` holds none. Unset: the nearest ancestor’s; none set on the chain: the facility’s (SMS settings `quietHours`).'

const HHMM = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: 'HH:MM, 24-hour, local to the site.',
})

export const QuietHoursSchema = Type.Object(
  { start: HHMM, end: HHMM },
  { additionalProperties: false, description: QUIET_HOURS_DESCRIPTION },
)

/** The columns a site keeps its own window in (migration 0081); both null: inherited. */
export interface QuietHoursColumns {
  quiet_start: string | null
  quiet_end: string | null
}
export const QUIET_HOURS_COLUMNS = ['quiet_start', 'quiet_end'] as const

/** The columns of a window as given (null: inherit again). */
export function quietHoursColumns(q: QuietHours | null | undefined): QuietHoursColumns {
  return { quiet_start: q?.start ?? null, quiet_end: q?.end ?? null }
}

/** A site's own window, if it set one. */
export function ownQuietHours(r: QuietHoursColumns): QuietHours | undefined {
  return r.quiet_start !== null && r.quiet_end !== null ? { start: r.quiet_start, end: r.quiet_end } : undefined
}

/** Pure: the window along a chain (the site first, then its ancestors nearest first): the first one set. */
export function inheritedQuietHours(chain: readonly QuietHoursColumns[]): QuietHours | undefined {
  for (const r of chain) {
    const own = ownQuietHours(r)
    if (own) return own
  }
  return undefined
}
