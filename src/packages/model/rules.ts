import type { Insertable } from 'kysely'
import { type PackageEventTable, eventRows } from '../../events/index.js'
import type { PackageActivityTable } from '../../platform/db/tables.js'
import { invalid } from '../../platform/kit/errors.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import type { PackageRow } from './field-kinds.js'
import { FIELD_ENTRIES } from './fields.js'
import type { ChangeColumn, ReplacedColumn } from './field-types.js'
import { eventsFor, hasReachedSite } from './events.js'
import { eventData } from './payload.js'
import type { NewPackage, PackageChange } from '../store/packages.js'
import type { Resolved } from './resolve.js'
import type { AddPackage, UpdatePackage } from '../api/schemas.js'
import type { SiteInfo } from '../../sites/index.js'
import { HANDED_OVER, isOneOf, NOT_WAITING } from './statuses.js'
import { normalizeTrackingNumber } from './tracking-number.js'
import { nextFlags, nextSiteArrival } from './flags.js'

/**
 * The pure rules of a package change, without a database: the state a change produces, the
 * activity it appends and the events it raises, with their data. The service reads, calls these,
 * and writes (packages/service.ts).
 */

/** Who makes the change: the subscription, the authenticated client id (userName), the clerk, and what the client claims (reportedBy). */
export interface Actor {
  subId: string
  userName: string
  clerk: string
  reportedBy?: string
  /** A console clerk limited to this site (issue 18.2): writes only packages at it or below, before and after the change. */
  siteScope?: string
}

export type Body = AddPackage | UpdatePackage

/** A user limited to a site (Actor.siteScope) writes packages at that site or below it. */
export const withinScope = (scope: string, site: SiteInfo | undefined) =>
  site !== undefined && !site.deleted && (site.inboundSiteId === scope || site.ancestorlist.includes(scope))

/** The package's columns after a change, but those every change moves on (version, counts, updated_at). */
export type NextState = Pick<PackageRow, Exclude<ChangeColumn, 'version' | 'updated_at'> | 'archived_at'>

/** The `replace` inputs of the registry (fields.ts): given replaces, `null` clears, absent keeps. */
const REPLACED = FIELD_ENTRIES.flatMap(([name, f]) =>
  f.input?.rule === 'replace' && f.column ? [[f.input.name ?? name, f.column] as const] : [],
)
function replacedColumns(
  current: PackageRow | undefined,
  given: Record<string, unknown>,
): Pick<PackageRow, ReplacedColumn> {
  const out: Record<string, unknown> = {}
  for (const [input, column] of REPLACED)
    out[column] = given[input] !== undefined ? given[input] : current ? current[column] : null
  return out as Pick<PackageRow, ReplacedColumn>
}

/** The new state a change produces, from the current row (none for an add), the body and the resolved references. */
export function nextState(
  current: PackageRow | undefined,
  body: Body,
  resolved: Resolved,
  actor: Actor,
  now: Date,
): NextState {
  const p = body.package
  const act = body.lastActivity
  const status = act?.status ?? (current ? current.current_status : 'RECEIVED')
  const handedOver = isOneOf(HANDED_OVER, status)
  const pick = <K extends keyof PackageRow>(key: K, given: PackageRow[K] | undefined): PackageRow[K] | null =>
    given !== undefined ? given : current ? current[key] : null
  let givenToId = pick('given_to_id', p.givenTo === undefined ? undefined : (p.givenTo?.contactId ?? null))
  const receiverId = pick('receiver_id', p.receiver === undefined ? undefined : (p.receiver?.contactId ?? null))
  const delivering = handedOver && current?.current_status !== status
  if (handedOver && !givenToId) {
    if (!receiverId) throw invalid('package.givenTo', `${status} needs givenTo (or a receiver to hand it to).`)
    givenToId = receiverId
  }
  const lockerBank = act?.location?.lockerBank ?? (status === 'IN_LOCKER' ? (current?.locker_bank ?? null) : null)
  const lockerUnit = act?.location?.lockerUnit ?? (status === 'IN_LOCKER' ? (current?.locker_unit ?? null) : null)
  if (status === 'IN_LOCKER' && (!lockerBank || !lockerUnit))
    throw invalid(
      'lastActivity.location.lockerBank',
      'IN_LOCKER needs lastActivity.location.lockerBank and lockerUnit.',
    )
  const damaged = status === 'DAMAGED' || (p.damaged ?? current?.damaged ?? false)
  // The clerk who received it: unset while an announced package has not reached a site (see packages/model/events.ts).
  const receiveClerk = hasReachedSite(current ? current.receive_clerk !== null : false, status)
    ? (current?.receive_clerk ?? actor.clerk)
    : null
  return {
    ...replacedColumns(current, p),
    tracking_number:
      p.trackingNumber !== undefined ? normalizeTrackingNumber(p.trackingNumber) : current!.tracking_number,
    asset_type: p.assetType ?? current?.asset_type ?? 'PACKAGE',
    carrier_id: p.carrier === undefined ? (current?.carrier_id ?? null) : (resolved.carrier?.carrierId ?? null),
    current_status: status,
    damaged,
    archived: status === 'ARCHIVED',
    archived_at: status === 'ARCHIVED' ? (current?.archived_at ?? now) : null,
    sender_id: pick('sender_id', p.sender === undefined ? undefined : (p.sender?.contactId ?? null)),
    receiver_id: receiverId,
    given_to_id: givenToId,
    custom_fields: resolved.customFields ?? current?.custom_fields ?? [],
    site_id: resolved.site?.inboundSiteId ?? current?.site_id ?? null,
    package_location: act?.location?.packageLocation ?? pick('package_location', p.packageLocation),
    locker_bank: lockerBank,
    locker_unit: lockerUnit,
    current_route:
      p.currentRoute === undefined ? (current?.current_route ?? null) : (p.currentRoute?.routeName ?? null),
    delivery_time: delivering ? now : handedOver ? (current?.delivery_time ?? now) : null,
    delivery_clerk: delivering ? actor.clerk : handedOver ? (current?.delivery_clerk ?? actor.clerk) : null,
    receive_clerk: receiveClerk,
    flags: nextFlags(current, p.flags),
    site_arrived_at: nextSiteArrival(current, resolved.site, receiveClerk !== null, now),
  }
}

/** The package as the change found it (for an add, its zero state). */
export interface PackageBefore {
  package_id: string
  version: number
  activity_count: number
  event_count: number
  previousStatus: string | null
  wasAtSite: boolean
  wasDamaged: boolean
  previousLocker: { bank: string | null; unit: string | null }
}

export const beforeChange = (row: PackageRow): PackageBefore => ({
  package_id: row.package_id,
  version: row.version,
  activity_count: row.activity_count,
  event_count: row.event_count,
  previousStatus: row.current_status,
  wasAtSite: row.receive_clerk !== null,
  wasDamaged: row.damaged,
  previousLocker: { bank: row.locker_bank, unit: row.locker_unit },
})

/** A package not written yet. */
export const beforeAdd = (packageId: string): PackageBefore => ({
  package_id: packageId,
  version: 0,
  activity_count: 0,
  event_count: 0,
  previousStatus: null,
  wasAtSite: false,
  wasDamaged: false,
  previousLocker: { bank: null, unit: null },
})

export interface ChangeRows {
  activity: Insertable<PackageActivityTable>
  events: Array<Insertable<PackageEventTable>>
}

/** The activity a change appends and the outbox events it raises, with their data: rows to write, nothing written yet. */
export function changeRows(
  ids: IdGenerator,
  actor: Actor,
  pkg: PackageBefore,
  state: NextState,
  body: Body,
  resolved: Resolved,
  now: Date,
): ChangeRows {
  const events = eventsFor({
    previousStatus: pkg.previousStatus,
    status: state.current_status,
    wasAtSite: pkg.wasAtSite,
    wasDamaged: pkg.wasDamaged,
    damaged: state.damaged,
    previousLocker: pkg.previousLocker,
    locker: { bank: state.locker_bank, unit: state.locker_unit },
  })
  const source = {
    row: { ...state, package_id: pkg.package_id },
    site: resolved.site,
    receiver: state.receiver_id ? resolved.contacts.get(state.receiver_id) : undefined,
    carrier: resolved.carrier,
  }
  return {
    activity: {
      activity_id: ids('act_'),
      sub_id: actor.subId,
      package_id: pkg.package_id,
      sequence: pkg.activity_count + 1,
      status: state.current_status,
      site_id: state.site_id,
      package_location: state.package_location,
      locker_bank: state.locker_bank,
      locker_unit: state.locker_unit,
      damaged: state.damaged,
      comment: body.lastActivity?.comment ?? null,
      user_name: actor.userName,
      reported_by: actor.reportedBy ?? null,
      occurred_at: now,
    },
    events: eventRows(
      events.map((e, i) => ({
        eventId: ids('evt_'),
        subId: actor.subId,
        packageId: pkg.package_id,
        variant: e.variant,
        eventName: e.eventName,
        sequence: pkg.event_count + i + 1,
        occurredAt: now,
        data: eventData(source, pkg.previousStatus, pkg.event_count + i + 1),
      })),
    ),
  }
}

/** The rows one change to an existing package writes: its columns after the change (a version on), the activity, its events. */
export function changeOf(
  ids: IdGenerator,
  actor: Actor,
  pkg: PackageBefore,
  state: NextState,
  body: Body,
  resolved: Resolved,
  now: Date,
): PackageChange {
  const { activity, events } = changeRows(ids, actor, pkg, state, body, resolved, now)
  return {
    package: {
      ...state,
      package_id: pkg.package_id,
      sub_id: actor.subId,
      version: pkg.version + 1,
      activity_count: pkg.activity_count + 1,
      event_count: pkg.event_count + events.length,
      updated_at: now,
    },
    activity,
    events,
    eventCountBefore: pkg.event_count,
  }
}

/**
 * The change with a candidate pickup code when, after it, the package waits under a code that is
 * not its receiver's current one: it had none (announced, it arrived), it was not waiting before
 * (delivered, returned or archived, set back: its old code may be used), or its receiver was
 * corrected (the old receiver's code would let the old receiver collect it, and the new one would
 * have two). The statement then gives it the receiver's waiting code, or registers the candidate
 * (packages/store/packages.ts writeChanges). A change that leaves it waiting for the same receiver keeps its
 * code; one that hands it over keeps it too (the used code stays on the record).
 */
export function withPickupCandidate(
  change: PackageChange,
  row: Pick<PackageRow, 'pickup_code' | 'receiver_id' | 'current_status' | 'archived'>,
  newPickupCode: () => string,
): PackageChange {
  const p = change.package
  if (p.archived || isOneOf(NOT_WAITING, p.current_status)) return change
  const wasWaiting = !row.archived && !isOneOf(NOT_WAITING, row.current_status)
  if (row.pickup_code && wasWaiting && (row.receiver_id ?? null) === (p.receiver_id ?? null)) return change
  return { ...change, pickupCode: newPickupCode() }
}

/** The rows an add writes: the package at version 1, its first activity, its events. */
export function newPackageOf(
  ids: IdGenerator,
  actor: Actor,
  body: AddPackage,
  resolved: Resolved,
  now: Date,
  newPickupCode: () => string,
): NewPackage {
  const state = nextState(undefined, body, resolved, actor, now)
  const packageId = ids('pkg_')
  const { activity, events } = changeRows(ids, actor, beforeAdd(packageId), state, body, resolved, now)
  return {
    package: {
      ...state,
      package_id: packageId,
      sub_id: actor.subId,
      custom_fields: JSON.stringify(state.custom_fields),
      user_name: actor.userName,
      // A candidate: the statement gives the package its receiver's waiting code instead, when
      // there is one (packages/store/packages.ts insertNewPackages).
      pickup_code: isOneOf(NOT_WAITING, state.current_status) ? null : newPickupCode(),
      version: 1,
      activity_count: 1,
      event_count: events.length,
      created_at: now,
      updated_at: now,
    },
    activity,
    events,
  }
}
