import type { Departure } from '../directory/index.js'
import type { FailedNotification } from '../notifications/index.js'
import type { PackageRecord, WaitingConcern, WaitingRow } from '../packages/index.js'
import type { OpenIssueRef } from '../scanissues/index.js'
import type { SiteRef } from '../sites/index.js'
import type { Clock } from '../platform/kit/clock.js'
import { invalid } from '../platform/kit/errors.js'
import type { CountExceptionsQuery, ExceptionCounts, ListExceptionsQuery, ParcelException } from './api/schemas.js'
import { byAge, EXCEPTION_KINDS, KIND_NAMES, type ExceptionKind, type Found } from './model/kinds.js'
import { missingStill, type ShelfMissing } from './model/shelf.js'

/** The most rows a source that is not a packages index is read for (open scan issues, failures, departures). */
const CANDIDATES = 1_000
/** A list over several kinds is merged from each kind's first page × size rows: at most this many. */
const MAX_WINDOW = 10_000
const DAY_MS = 86_400_000

export interface ExceptionsDeps {
  clock: Clock
  /** A site and the sites under it; undefined when the subscription has no such site. */
  sitesUnder(subId: string, siteId: string): Promise<string[] | undefined>
  packages: {
    oldestWaiting(
      subId: string,
      q: { concern: WaitingConcern; before?: Date; siteIds?: string[]; offset: number; limit: number },
    ): Promise<WaitingRow[]>
    countWaiting(subId: string, q: { concern: WaitingConcern; before?: Date; siteIds?: string[] }): Promise<number>
    waitingAmong(subId: string, packageIds: string[], siteIds?: string[]): Promise<WaitingRow[]>
    recordsByIds(subId: string, packageIds: string[]): Promise<PackageRecord[]>
  }
  openScanIssues(subId: string, limit: number): Promise<OpenIssueRef[]>
  departures(subId: string): Promise<Departure[]>
  failedNotifications(subId: string, limit: number): Promise<FailedNotification[]>
  shelvesMissing(subId: string): Promise<ShelfMissing[]>
  /** The open return proposals (holds), oldest arrival first, within the sites. */
  returnProposals(
    subId: string,
    q: { siteIds?: string[]; skip: number; limit: number },
  ): Promise<{ rows: Array<{ package_id: string; proposed_at: Date; deadline_days: number }>; total: number }>
}

/** Who asks: a clerk limited to a site sees that site's exceptions only. */
export interface ExceptionsActor {
  subId: string
  siteScope?: string
}

interface Filter {
  siteIds?: string[]
  unclaimedBefore: Date
}

/** One kind's exceptions: a page of them oldest first, and how many. */
interface Source {
  page(subId: string, f: Filter, offset: number, limit: number): Promise<Found[]>
  count(subId: string, f: Filter): Promise<number>
}

export type ExceptionsService = ReturnType<typeof createExceptionsService>

/**
 * Exceptions in one place (issue 30.3): each kind asked of the domain that owns its cause, through
 * that domain's index.ts (composed in app/context.ts), never by reading another domain's tables.
 * An exception is about a parcel still waiting: a handed-over, returned or archived parcel has none.
 * A read: nothing here writes.
 */
export function createExceptionsService(deps: ExceptionsDeps) {
  const { packages } = deps

  /** A kind read from a packages index: its own offset and count. */
  const waiting = (kind: ExceptionKind, concern: WaitingConcern, aged = false): Source => {
    const q = (f: Filter) => ({
      concern,
      ...(aged ? { before: f.unclaimedBefore } : {}),
      ...(f.siteIds ? { siteIds: f.siteIds } : {}),
    })
    return {
      async page(subId, f, offset, limit) {
        const rows = await packages.oldestWaiting(subId, { ...q(f), offset, limit })
        return rows.map((r) => ({ kind, packageId: r.package_id, since: r.created_at, refs: {} }))
      },
      count: (subId, f) => packages.countWaiting(subId, q(f)),
    }
  }

  /** A kind read whole (it is bounded), then paged. */
  const listed = (all: (subId: string, f: Filter) => Promise<Found[]>): Source => {
    // A request's page and count read the kind once: the filter is the request's own object.
    const read = new WeakMap<Filter, Promise<Found[]>>()
    const once = (subId: string, f: Filter) => {
      const got = read.get(f) ?? all(subId, f)
      read.set(f, got)
      return got
    }
    return {
      page: async (subId, f, offset, limit) => (await once(subId, f)).slice(offset, offset + limit),
      count: async (subId, f) => (await once(subId, f)).length,
    }
  }

  /** A kind whose candidates another domain lists (bounded): those whose parcel still waits (at the sites). */
  const candidates = (read: (subId: string, f: Filter) => Promise<Found[]>): Source => {
    const all = async (subId: string, f: Filter) => {
      const found = await read(subId, f)
      const still = new Set(
        (
          await packages.waitingAmong(
            subId,
            found.map((x) => x.packageId),
            f.siteIds,
          )
        ).map((r) => r.package_id),
      )
      return found.filter((x) => still.has(x.packageId)).sort(byAge)
    }
    return listed(all)
  }

  // One source per kind: a kind added to EXCEPTION_KINDS does not compile until it has one here.
  const SOURCES: Record<ExceptionKind, Source> = {
    unclaimed: waiting('unclaimed', 'waiting', true),
    unmatched_recipient: candidates(async (subId) =>
      (await deps.openScanIssues(subId, CANDIDATES)).map((i) => ({
        kind: 'unmatched_recipient' as const,
        packageId: i.package_id,
        since: i.opened_at,
        detail: i.reason,
        refs: { scanIssueId: i.scan_issue_id },
      })),
    ),
    unknown_format: waiting('unknown_format', 'unknown_carrier'),
    damaged: waiting('damaged', 'damaged'),
    recipient_departed: candidates(async (subId) =>
      (await deps.departures(subId)).flatMap((d) =>
        d.packages.map((p) => ({
          kind: 'recipient_departed' as const,
          packageId: p.packageId,
          since: new Date(d.notedAt),
          detail:
            d.reason === 'moved-out'
              ? `${d.name}: moved out${d.moveOutDate ? ` ${d.moveOutDate}` : ''}`
              : `${d.name}: deactivated`,
          refs: { contactId: d.contactId },
        })),
      ),
    ),
    notification_failed: candidates(async (subId) => {
      const seen = new Set<string>()
      const out: Found[] = []
      // Newest failure first: a parcel's exception is its latest failed notification.
      for (const n of await deps.failedNotifications(subId, CANDIDATES))
        for (const packageId of n.packageIds) {
          if (seen.has(packageId)) continue
          seen.add(packageId)
          out.push({
            kind: 'notification_failed',
            packageId,
            since: n.failedAt,
            detail: `${n.kind} (${n.channel})${n.lastError ? `: ${n.lastError}` : ''}`,
            refs: { notificationId: n.notificationId },
          })
        }
      return out
    }),
    // Not `candidates`: whether a parcel is still missing depends on where it is now and since when.
    missing_from_shelf: listed(async (subId, f) => {
      const audits = await deps.shelvesMissing(subId)
      const rows = await packages.waitingAmong(
        subId,
        audits.flatMap((a) => a.missing_ids),
        f.siteIds,
      )
      return missingStill(audits, rows).sort(byAge)
    }),
    // Paged by the holds domain itself: its list holds only parcels still waiting.
    return_proposed: {
      async page(subId, f, offset, limit) {
        const { rows } = await deps.returnProposals(subId, { siteIds: f.siteIds, skip: offset, limit })
        return rows.map((r) => ({
          kind: 'return_proposed' as const,
          packageId: r.package_id,
          since: new Date(r.proposed_at),
          detail: `waiting past its ${r.deadline_days}-day return deadline`,
          refs: {},
        }))
      },
      count: async (subId, f) => (await deps.returnProposals(subId, { siteIds: f.siteIds, skip: 0, limit: 0 })).total,
    },
  }

  /** The filter of a query: the sites (within the clerk's), the unclaimed cutoff. */
  async function filterOf(actor: ExceptionsActor, q: CountExceptionsQuery): Promise<Filter> {
    const f: Filter = { unclaimedBefore: new Date(deps.clock.now().getTime() - (q.unclaimedDays ?? 3) * DAY_MS) }
    if (q.inboundSiteId !== undefined) {
      const under = await deps.sitesUnder(actor.subId, q.inboundSiteId)
      if (!under) throw invalid('inboundSiteId', `No site ${q.inboundSiteId}.`)
      f.siteIds = under
    }
    if (actor.siteScope !== undefined) {
      const scope = new Set((await deps.sitesUnder(actor.subId, actor.siteScope)) ?? [])
      f.siteIds = (f.siteIds ?? [...scope]).filter((id) => scope.has(id))
    }
    return f
  }

  function kindsOf(kind: string | undefined): ExceptionKind[] {
    if (kind === undefined) return KIND_NAMES
    const asked = kind.split(',').map((k) => k.trim())
    const bad = asked.find((k) => !(KIND_NAMES as string[]).includes(k))
    if (bad !== undefined) throw invalid('kind', `Unknown kind '${bad}': one of ${KIND_NAMES.join(', ')}.`)
    return KIND_NAMES.filter((k) => asked.includes(k))
  }

  async function view(subId: string, found: Found[]): Promise<ParcelException[]> {
    const records = new Map(
      (
        await packages.recordsByIds(
          subId,
          found.map((x) => x.packageId),
        )
      ).map((r) => [r.packageId, r]),
    )
    return found.map((x) => toException(x, records.get(x.packageId)))
  }

  return {
    async listExceptions(
      actor: ExceptionsActor,
      q: ListExceptionsQuery,
    ): Promise<{ exceptions: ParcelException[]; totalCount: number }> {
      const kinds = kindsOf(q.kind)
      const size = q.size ?? 25
      const offset = ((q.page ?? 1) - 1) * size
      if (kinds.length > 1 && offset + size > MAX_WINDOW)
        throw invalid(
          'page',
          `A list of several kinds reaches ${MAX_WINDOW} rows at most: ask for one kind to go further.`,
        )
      const f = await filterOf(actor, q)
      const [pages, counts] = await Promise.all([
        Promise.all(
          kinds.map((k) =>
            kinds.length === 1
              ? SOURCES[k].page(actor.subId, f, offset, size)
              : SOURCES[k].page(actor.subId, f, 0, offset + size),
          ),
        ),
        Promise.all(kinds.map((k) => SOURCES[k].count(actor.subId, f))),
      ])
      const page =
        kinds.length === 1
          ? pages[0]!
          : pages
              .flat()
              .sort(byAge)
              .slice(offset, offset + size)
      return { exceptions: await view(actor.subId, page), totalCount: counts.reduce((a, b) => a + b, 0) }
    },

    async countExceptions(actor: ExceptionsActor, q: CountExceptionsQuery): Promise<ExceptionCounts> {
      const kinds = kindsOf(q.kind)
      const f = await filterOf(actor, q)
      const counts = await Promise.all(kinds.map((k) => SOURCES[k].count(actor.subId, f)))
      return {
        counts: kinds.map((kind, i) => ({ kind, nextAction: EXCEPTION_KINDS[kind].action, count: counts[i]! })),
        totalCount: counts.reduce((a, b) => a + b, 0),
      }
    },
  }
}

function toException(x: Found, p: PackageRecord | undefined): ParcelException {
  const out: ParcelException = {
    kind: x.kind,
    nextAction: EXCEPTION_KINDS[x.kind].action,
    packageId: x.packageId,
    since: x.since.toISOString(),
    ...x.refs,
  }
  if (x.detail) out.detail = x.detail
  if (p) {
    out.trackingNumber = p.trackingNumber
    out.currentStatus = p.currentStatus
    if (p.receiver) out.receiver = { contactId: p.receiver.contactId, name: p.receiver.name }
    // The record's location is a SiteRef, typed loosely by the field registry (packages/model/fields.ts).
    const location = p.currentLocation as SiteRef | undefined
    if (location) out.currentLocation = location
    if (p.packageLocation) out.packageLocation = p.packageLocation
  }
  return out
}
