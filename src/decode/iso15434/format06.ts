import { setField, type Draft } from '../draft.js'
import { formatPostalCode, isAlpha2Country } from '../tables/countries.js'

/** ANSI MH10.8.2 data identifier: up to three digits then one upper-case letter ("1J", "2L", "11Z"). */
const DATA_IDENTIFIER = /^(\d{0,3}[A-Z])([\s\S]*)$/

export function splitDataIdentifier(element: string): { di: string; value: string } | undefined {
  const m = DATA_IDENTIFIER.exec(element)
  if (m === null) return undefined
  return { di: m[1] ?? '', value: m[2] ?? '' }
}

/**
 * 2L is the ship-to postal code. DHL writes it as ISO alpha-2 country + postcode, followed by "+"
 * and its routing and product codes ("2LDE53113+70000000").
 */
function applyShipToPostal(draft: Draft, value: string): void {
  const routed = /^([A-Z]{2})([A-Z0-9 ]{2,12})(?:\+(.*))?$/.exec(value)
  const dest = draft.destination
  if (routed !== null && isAlpha2Country(routed[1] ?? '') && (routed[3] !== undefined || /\d/.test(routed[2] ?? ''))) {
    dest.country ??= routed[1]
    dest.postalCode ??= formatPostalCode((routed[2] ?? '').trim(), routed[1])
    if (routed[3] !== undefined) setField(draft, 'routingCode', routed[3])
    return
  }
  dest.postalCode ??= formatPostalCode(value.trim(), dest.country)
}

/**
 * Format 06 elements become fields keyed by their data identifier. Only identifiers with one
 * unambiguous meaning feed the destination; the rest stay as raw fields for the caller.
 */
export function applyDataIdentifiers(draft: Draft, elements: readonly string[]): void {
  for (const element of elements) {
    const parsed = splitDataIdentifier(element)
    if (parsed === undefined) {
      setField(draft, 'unparsed', element)
      continue
    }
    setField(draft, parsed.di, parsed.value)
    if (parsed.di === '2L' && parsed.value !== '') applyShipToPostal(draft, parsed.value)
  }
}
