import { Type } from '@sinclair/typebox'
import { holdingFeeFor, HoldingFeeOutSchema, type HoldingFee } from '../../sites/index.js'
import type { PackageRow } from './field-kinds.js'
import { cellFrom, lit, Nullable } from './field-parts.js'
import type { RecordContext } from './refs.js'
import { isOneOf, NOT_WAITING } from './statuses.js'
import type { SiteInfo } from '../../sites/index.js'

/**
 * Issue 30: a parcel's flags (what the desk must know of it) and its holding fee, two entries of
 * the package field registry (fields.ts) with the rules that write them. The flag vocabulary is
 * API: never renamed. SIGNATURE_REQUIRED is the parcel's own demand (a hand-over of it needs the
 * collector's signature whatever its site's `signatureRule` says); `confirmationType` stays the
 * vendor contract's record of how a delivery was confirmed.
 */
export const PACKAGE_FLAGS = ['PERISHABLE', 'MEDICATION', 'OVERSIZE', 'SIGNATURE_REQUIRED', 'FRAGILE'] as const
export type PackageFlag = (typeof PACKAGE_FLAGS)[number]

const FLAGS_DESCRIPTION =
  'An extension to the vendor contract: what the desk must know of the parcel, any of PERISHABLE (reminded sooner: the notification settings’ perishableReminderAfterHours), MEDICATION, OVERSIZE, SIGNATURE_REQUIRED (its hand-over needs the collector’s signature whatever the site’s signatureRule says) and FRAGILE. Shown in the console and in the arrival and reminder emails.'

/** The flags as stored: each once, in the vocabulary's order. */
export const flagsOf = (given: readonly string[]): PackageFlag[] => PACKAGE_FLAGS.filter((f) => given.includes(f))

/** The flags after a change: given replaces (`null` clears), absent keeps. */
export const nextFlags = (current: PackageRow | undefined, given: readonly string[] | null | undefined): string[] =>
  given === undefined ? (current?.flags ?? []) : flagsOf(given ?? [])

/**
 * When the package reached the site it is at (its holding fee counts from there): kept while it stays
 * at that site or goes down into a shelf or bin below it, started again when it arrives (an announced
 * package reaching its site) or moves to any other site.
 */
export function nextSiteArrival(
  current: PackageRow | undefined,
  site: SiteInfo | undefined,
  reached: boolean,
  now: Date,
): Date | null {
  if (!reached) return null
  const since = current && current.receive_clerk !== null ? (current.site_arrived_at ?? current.created_at) : null
  if (!since) return now
  const was = current!.site_id
  if (!was || !site) return since
  return site.inboundSiteId === was || site.ancestorlist.includes(was) ? since : now
}

/** The holding fee as the record shows it: until its hand-over, or, while it waits, until the read. */
function holdingFeeOf(r: PackageRow, ctx: RecordContext): HoldingFee | undefined {
  const policy = r.site_id ? ctx.sites.get(r.site_id)?.holdingFee : undefined
  if (!policy || r.receive_clerk === null) return undefined
  const waiting = !r.archived && !isOneOf(NOT_WAITING, r.current_status)
  const until = r.delivery_time ?? (waiting ? ctx.now : undefined)
  return until ? holdingFeeFor(policy, r.site_arrived_at ?? r.created_at, until) : undefined
}

export const FLAG_FIELDS = {
  flags: {
    column: 'flags',
    writtenBy: 'change',
    record: Type.Array(Type.String(), { description: FLAGS_DESCRIPTION }),
    read: (r: PackageRow) => r.flags,
    input: {
      order: 16,
      rule: 'own',
      schema: Type.Optional(
        Nullable(
          Type.Array(lit(PACKAGE_FLAGS), {
            maxItems: 10,
            description: `${FLAGS_DESCRIPTION} Optional: given replaces the flags (a flag given twice counts once), \`null\` or \`[]\` clears them, absent keeps them.`,
          }),
        ),
      ),
    },
    search: { kind: 'flag', order: 11 },
    csv: 26,
    // Joined as the export joins every list (search/model/mapping.ts csvCell).
    cells: { flags: cellFrom(['flags'], (r) => r.flags.join('|')) },
    event: { schema: Type.Array(Type.String()), value: (s: { row: Partial<PackageRow> }) => s.row.flags ?? [] },
  },
  holdingFee: {
    column: 'site_arrived_at',
    writtenBy: 'change',
    record: Type.Optional(HoldingFeeOutSchema),
    read: holdingFeeOf,
  },
} as const
