/** A site of a parcel's place, root first, as the sites domain stores it (its name and type). */
export interface PlacePart {
  name: string
  type: string
}

/** Where a parcel waits, as an email says it. */
export interface Place {
  /** The building part: the site and what contains the shelf ("Mailroom 1, Building 1"). */
  where: string
  /** With the shelf, locker or mail stop: "Mailroom 1, Building 1 — shelf A-3". */
  place: string
  /** The IANA time zone of the place: its nearest location's, else NOTIFY_TIME_ZONE. */
  timeZone: string
  /** The site's quiet hours for texts (its own or an ancestor's, issue 29); absent: the facility's. */
  quietHours?: { start: string; end: string }
}

/** Site types that hold parcels inside a building: said after the dash, with their kind. */
const STORAGE = new Set(['shelf', 'locker', 'mailstop'])
const WORD: Record<string, string> = { mailstop: 'mail stop' }

/** "shelf A-3", or the name alone when it already says what it is ("Shelf 12", "Locker bank B"). */
function storageLabel(p: PlacePart): string {
  const word = WORD[p.type] ?? p.type
  return p.name.toLowerCase().startsWith(word) ? p.name : `${word} ${p.name}`
}

/**
 * Pure: a place as people read it, from its sites root first: the containing sites (site, building,
 * floor, room) joined by commas, then a dash and the storage sites ("Mailroom 1, Building 1 — shelf
 * A-3"). Ids and codes never appear: only the names the sites were given.
 */
export function placeOf(chain: readonly PlacePart[], timeZone: string): Place {
  const firstStorage = chain.findIndex((p) => STORAGE.has(p.type))
  const containers = firstStorage < 0 ? chain : chain.slice(0, firstStorage)
  const storage = firstStorage < 0 ? [] : chain.slice(firstStorage)
  const where = containers.map((p) => p.name).join(', ')
  const stored = storage.map(storageLabel).join(', ')
  return { where, place: where && stored ? `${where} — ${stored}` : where || stored, timeZone }
}

/**
 * Pure: a moment as a recipient reads it, in the place's time zone and the email's language
 * ("Fri, Nov 27, 2026, 10:30 AM EST"). An unknown zone falls back to UTC rather than fail the email.
 */
export function localTime(at: Date, timeZone: string, language: string): string {
  const options: Intl.DateTimeFormatOptions = {
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  }
  try {
    return new Intl.DateTimeFormat(language, { ...options, timeZone }).format(at)
  } catch {
    return new Intl.DateTimeFormat(language, { ...options, timeZone: 'UTC' }).format(at)
  }
}
