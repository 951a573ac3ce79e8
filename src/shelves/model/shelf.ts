import { encodeBase32 } from '../../platform/kit/ids.js'
import { randomBytes } from 'node:crypto'

/** What a storage place is called at the desk; vocabulary of the API (never renamed). */
export const SHELF_KINDS = ['shelf', 'bin', 'cage', 'locker_bank'] as const
export type ShelfKind = (typeof SHELF_KINDS)[number]

/** Site types a shelf may be: storage places under a site, never a top-tier site itself. */
export const STORAGE_SITE_TYPES = ['building', 'floor', 'room', 'mailstop', 'shelf', 'locker'] as const

/**
 * Every label code starts with this: a scanner types it like any barcode, and the desk tells a
 * shelf from a parcel by it (no carrier's tracking number starts with "SHELF-").
 */
export const CODE_PREFIX = 'SHELF-'

/**
 * A new label code: the prefix and six Crockford base-32 characters (30 bits). Short on purpose: a
 * Code 128 of 12 characters stays wide enough to scan on a 2.25 in label printed at 203 dpi, where a
 * site id (31 characters) would need modules under one dot wide.
 */
export function newShelfCode(): string {
  return CODE_PREFIX + encodeBase32(randomBytes(4)).slice(0, 6)
}

/** A scanned text as a shelf code (trimmed, upper case), or undefined when it is not one. */
export function asShelfCode(scan: string): string | undefined {
  const s = scan.trim().toUpperCase()
  return /^SHELF-[0-9A-Z]{6}$/.test(s) ? s : undefined
}

export interface AuditOutcome {
  /** Expected here and scanned. */
  found: string[]
  /** Expected here and not scanned. */
  missing: string[]
  /** Scanned here but recorded elsewhere. */
  misplaced: string[]
}

/**
 * An audit's classes, from the package ids recorded at the shelf and those scanned there (each id
 * once, in scan order for found and misplaced, in record order for missing).
 */
export function classifyAudit(expected: readonly string[], scanned: readonly string[]): AuditOutcome {
  const want = new Set(expected)
  const seen = new Set(scanned)
  const uniq = [...seen]
  return {
    found: uniq.filter((id) => want.has(id)),
    missing: expected.filter((id) => !seen.has(id)),
    misplaced: uniq.filter((id) => !want.has(id)),
  }
}
