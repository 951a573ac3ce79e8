import type { ParsedSearch } from '../model/parse.js'

// The pieces of a search's WHERE that the page query, the count and the tallies share, so that
// all three mean the same filter.

/** LIKE pattern for a user value: its own %, _ and \ are literal. */
export function likePattern(value: string, position: ParsedSearch['position']): string {
  const v = value.replace(/[\\%_]/g, (c) => `\\${c}`)
  return position === 'starts' ? `${v}%` : position === 'ends' ? `%${v}` : `%${v}%`
}

/** A status filter as SQL takes it: an empty list matches nothing. */
export const statusList = (statuses: string[]) => (statuses.length ? statuses : ['-'])
