import type { Db } from '../db/database.js'
import { isStatementError } from '../db/errors.js'
import { inTransaction, type Executor } from '../db/transaction.js'
import type { ImagesService } from '../images/images.service.js'
import type { SiteInfo } from '../sites/sites.service.js'
import type { Clock } from '../shared/clock.js'
import { batchPerSubscription, type SubscriptionLookup } from '../shared/batch.js'
import { AppError, invalid, registerErrors } from '../shared/errors.js'
import type { IdGenerator } from '../shared/ids.js'
import { eventRows } from '../webhooks/outbox.js'
import type { PackageReaders } from './packages.deps.js'
import { eventsFor, hasReachedSite } from './packages.events.js'
import { loadRecords, type RecordFilter } from './packages.read.js'
import { toRecord } from './packages.record.js'
import * as repo from './packages.repo.js'
import { writeTogether } from './packages.together.js'
import { isClaimLost, type RecordOutcome } from '../idempotency/outcome.js'
import { resolveReferences, type Resolved } from './packages.resolve.js'
import type { AddPackage, PackageRecord, UpdatePackage, WriteResponseSchema } from './packages.schemas.js'
import type { Static } from '@sinclair/typebox'

/** What Add and Update answer. */
type WriteResult = Static<typeof WriteResponseSchema>

/** An add handed to the writer, with the answer to record under its Idempotency-Key, if any. */
interface NewAdd {
  add: repo.NewPackage
  outcome: RecordOutcome<WriteResult> | undefined
  result: WriteResult
}

export const PACKAGE_ERRORS = registerErrors({
  PACKAGE_NOT_FOUND: { status: 404, errorCode: 'not_found', additionalCode: 'PKG-4040', message: 'No such package.' },
  TRACKING_NUMBER_EXISTS: { status: 409, errorCode: 'already_exists', additionalCode: 'PKG-4090', message: 'An active package already has this tracking number.' },
  PACKAGE_ARCHIVED: { status: 409, errorCode: 'validation_error', additionalCode: 'PKG-4091', message: 'The package is archived; un-archive it before updating.' },
})

/** Who makes the change: the subscription, the authenticated client id (userName), the clerk, and what the client claims (reportedBy). */
export interface Actor {
  subId: string
  userName: string
  clerk: string
  reportedBy?: string
}

export interface PackagesServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  readers: PackageReaders
  images: ImagesService
  /** Called once a change's outbox events are committed (the in-process webhook worker looks for them at once). */
  onEventsCommitted?: () => void
}

const TRACKING_SHAPE = /^[\x21-\x7E]{1,64}$/
export function normalizeTrackingNumber(raw: string): string {
  return raw.replace(/\s+/g, '').toUpperCase()
}

function checkTrackingNumber(raw: string, field: string): string {
  const tn = normalizeTrackingNumber(raw)
  if (!TRACKING_SHAPE.test(tn)) throw invalid(field, 'trackingNumber must be 1 to 64 printable characters once spaces are removed.')
  return tn
}

const DELIVERY_STATUSES = new Set(['DELIVERED', 'PICKED_UP'])

type Body = AddPackage | UpdatePackage

/** The new state a change produces, from the current row (none for an add), the body and the resolved references. */
function nextState(current: repo.PackageRow | undefined, body: Body, resolved: Resolved, actor: Actor, now: Date) {
  const p = body.package
  const act = body.lastActivity
  const status = act?.status ?? (current ? current.current_status : 'RECEIVED')
  const pick = <K extends keyof repo.PackageRow>(key: K, given: repo.PackageRow[K] | undefined): repo.PackageRow[K] | null =>
    given !== undefined ? given : current ? current[key] : null
  let givenToId = pick('given_to_id', p.givenTo === undefined ? undefined : (p.givenTo?.contactId ?? null))
  const receiverId = pick('receiver_id', p.receiver === undefined ? undefined : (p.receiver?.contactId ?? null))
  const delivering = DELIVERY_STATUSES.has(status) && current?.current_status !== status
  if (DELIVERY_STATUSES.has(status) && !givenToId) {
    if (!receiverId) throw invalid('package.givenTo', `${status} needs givenTo (or a receiver to hand it to).`)
    givenToId = receiverId
  }
  const lockerBank = act?.location?.lockerBank ?? (status === 'IN_LOCKER' ? (current?.locker_bank ?? null) : null)
  const lockerUnit = act?.location?.lockerUnit ?? (status === 'IN_LOCKER' ? (current?.locker_unit ?? null) : null)
  if (status === 'IN_LOCKER' && (!lockerBank || !lockerUnit)) throw invalid('lastActivity.location.lockerBank', 'IN_LOCKER needs lastActivity.location.lockerBank and lockerUnit.')
  const damaged = status === 'DAMAGED' || (p.damaged ?? current?.damaged ?? false)
  // The clerk who received it: unset while an announced package has not reached a site (see packages.events.ts).
  const receiveClerk = hasReachedSite(current ? current.receive_clerk !== null : false, status) ? (current?.receive_clerk ?? actor.clerk) : null
  return {
    tracking_number: p.trackingNumber !== undefined ? normalizeTrackingNumber(p.trackingNumber) : current!.tracking_number,
    asset_type: p.assetType ?? current?.asset_type ?? 'PACKAGE',
    carrier_id: p.carrier === undefined ? (current?.carrier_id ?? null) : (resolved.carrier?.carrierId ?? null),
    current_status: status,
    damaged,
    archived: status === 'ARCHIVED',
    archived_at: status === 'ARCHIVED' ? (current?.archived_at ?? now) : null,
    timezone: pick('timezone', p.timezone),
    sender_id: pick('sender_id', p.sender === undefined ? undefined : (p.sender?.contactId ?? null)),
    receiver_id: receiverId,
    given_to_id: givenToId,
    comment: pick('comment', p.comment),
    confirmation_type: pick('confirmation_type', p.confirmationType),
    additional_confirmation_type: pick('additional_confirmation_type', p.additionalConfirmationType),
    custom_fields: resolved.customFields ?? current?.custom_fields ?? [],
    site_id: resolved.site?.inboundSiteId ?? current?.site_id ?? null,
    package_location: act?.location?.packageLocation ?? pick('package_location', p.packageLocation),
    locker_bank: lockerBank,
    locker_unit: lockerUnit,
    current_route: p.currentRoute === undefined ? (current?.current_route ?? null) : (p.currentRoute?.routeName ?? null),
    delivery_time: delivering ? now : DELIVERY_STATUSES.has(status) ? (current?.delivery_time ?? now) : null,
    delivery_clerk: delivering ? actor.clerk : DELIVERY_STATUSES.has(status) ? (current?.delivery_clerk ?? actor.clerk) : null,
    receive_clerk: receiveClerk,
  }
}

/** The package as the change found it (for an add, its zero state). */
interface PackageBefore {
  package_id: string
  version: number
  activity_count: number
  event_count: number
  previousStatus: string | null
  wasAtSite: boolean
  wasDamaged: boolean
  previousLocker: { bank: string | null; unit: string | null }
}

const beforeChange = (row: repo.PackageRow): PackageBefore => ({
  package_id: row.package_id, version: row.version, activity_count: row.activity_count, event_count: row.event_count,
  previousStatus: row.current_status, wasAtSite: row.receive_clerk !== null, wasDamaged: row.damaged, previousLocker: { bank: row.locker_bank, unit: row.locker_unit },
})

/** Optimistic tries of an update before it takes the row lock (a package rarely changes twice at once). */
const OPTIMISTIC_ATTEMPTS = 2

export type PackagesService = ReturnType<typeof createPackagesService>

export function createPackagesService(deps: PackagesServiceDeps) {
  const { db, clock, ids, readers, images } = deps

  /** The activity a change appends and the outbox events it raises: rows to write, nothing written yet. */
  function changeRows(actor: Actor, pkg: PackageBefore, state: ReturnType<typeof nextState>, body: Body, resolved: Resolved, now: Date) {
    const activityId = ids('act_')
    const events = eventsFor({ previousStatus: pkg.previousStatus, status: state.current_status, wasAtSite: pkg.wasAtSite, wasDamaged: pkg.wasDamaged, damaged: state.damaged, previousLocker: pkg.previousLocker, locker: { bank: state.locker_bank, unit: state.locker_unit } })
    const receiver = state.receiver_id ? resolved.contacts.get(state.receiver_id) : undefined
    const { locationId: _l, status: _s, deleted: _d, ...siteRef } = resolved.site ?? ({} as Record<string, unknown>)
    return {
      activity: {
        activity_id: activityId, sub_id: actor.subId, package_id: pkg.package_id, sequence: pkg.activity_count + 1, status: state.current_status,
        site_id: state.site_id, package_location: state.package_location, locker_bank: state.locker_bank, locker_unit: state.locker_unit,
        damaged: state.damaged, comment: body.lastActivity?.comment ?? null, user_name: actor.userName, reported_by: actor.reportedBy ?? null, occurred_at: now,
      },
      events: eventRows(events.map((e, i) => ({
        eventId: ids('evt_'), subId: actor.subId, packageId: pkg.package_id, variant: e.variant, eventName: e.eventName,
        sequence: pkg.event_count + i + 1, occurredAt: now,
        data: {
          packageId: pkg.package_id, trackingNumber: state.tracking_number, currentStatus: state.current_status, previousStatus: pkg.previousStatus,
          sequence: pkg.event_count + i + 1, currentLocation: resolved.site ? siteRef : (state.site_id ? { inboundSiteId: state.site_id } : null),
          ...(state.locker_bank ? { lockerBank: state.locker_bank, lockerUnit: state.locker_unit } : {}),
          ...(receiver ? { receiver: { contactId: receiver.contactId, name: receiver.name, email: receiver.email ?? undefined } } : {}),
          ...(resolved.carrier ? { carrier: resolved.carrier } : {}),
        },
      }))),
    }
  }

  /** The rows one change to an existing package writes: its columns after the change (a version on), the activity, its events. */
  function changeOf(actor: Actor, pkg: PackageBefore, state: ReturnType<typeof nextState>, body: Body, resolved: Resolved, now: Date): repo.PackageChange {
    const { activity, events } = changeRows(actor, pkg, state, body, resolved, now)
    return {
      package: {
        ...state, package_id: pkg.package_id, sub_id: actor.subId,
        version: pkg.version + 1, activity_count: pkg.activity_count + 1, event_count: pkg.event_count + events.length, updated_at: now,
      },
      activity,
      events,
      eventCountBefore: pkg.event_count,
    }
  }

  /**
   * Writes one change inside the caller's transaction (which holds the package's row lock), then
   * attaches the images to its activity.
   */
  async function recordLocked(trx: Executor, change: repo.PackageChange, toAttach: Body['images']) {
    const packageId = change.package.package_id
    if (!(await repo.writeChanges(trx, [change])).has(packageId)) throw new Error(`package ${packageId} changed under its row lock`)
    return toAttach?.length ? images.attach(trx, change.package.sub_id, packageId, change.activity.activity_id, toAttach) : []
  }

  /** Concurrent updates without images: one statement, one commit (see writeTogether). */
  const changeTogether = writeTogether<repo.PackageChange>((changes) => repo.writeChanges(db, changes), (c) => c.package.package_id, isStatementError)

  /**
   * Concurrent adds without images: one statement, one commit (see writeTogether). The answers of
   * those with an Idempotency-Key are stored in the same transaction; a key lost to a retry fails
   * the batch before its commit, and then each add is written alone.
   */
  const addTogether = writeTogether<NewAdd>(async (items) => {
    const adds = items.map((i) => i.add)
    if (!items.some((i) => i.outcome)) return repo.insertNewPackages(db, adds)
    return inTransaction(db, async (trx) => {
      const written = await repo.insertNewPackages(trx, adds)
      for (const { add, outcome, result } of items) if (outcome && written.has(add.package.package_id)) await outcome(trx, result)
      return written
    })
  }, (i) => i.add.package.package_id, (e) => isStatementError(e) || isClaimLost(e))

  /**
   * Events carry the package's receiver and carrier even when the change did not name them: load
   * the current ones before the transaction (other domains read through their own connection).
   */
  async function withCurrentParties(subId: string, resolved: Resolved, row: repo.PackageRow): Promise<Resolved> {
    const receiverId = row.receiver_id
    const [contacts, carriers] = await Promise.all([
      receiverId && !resolved.contacts.has(receiverId) ? readers.contacts.getByIds(subId, [receiverId]) : Promise.resolve(new Map<string, never>()),
      row.carrier_id && !resolved.carrier ? readers.carriers.getVisible(subId, [row.carrier_id]) : Promise.resolve(new Map<string, never>()),
    ])
    for (const [id, c] of contacts) resolved.contacts.set(id, c)
    return { ...resolved, carrier: resolved.carrier ?? (row.carrier_id ? carriers.get(row.carrier_id) : undefined) }
  }

  /** DETAILED records by one column; concurrent requests' single reads go as one query (see batchPerSubscription). */
  const recordsBy = (filter: (keys: string[]) => RecordFilter, keyOf: (row: repo.PackageRow) => string): SubscriptionLookup<PackageRecord> =>
    async (subId, keys) => {
      const { rows, ctx } = await loadRecords(db, readers, subId, filter(keys))
      return new Map(rows.map((r) => [keyOf(r), toRecord(ctx, r)]))
    }
  /** The package row as it is now, outside any transaction; concurrent requests' reads go as one query. */
  const rowById = batchPerSubscription(async (subId, packageIds) => new Map((await repo.findPackages(db, subId, packageIds)).map((r) => [r.package_id, r])))
  const recordById = batchPerSubscription(recordsBy((packageIds) => ({ packageIds }), (r) => r.package_id))
  const recordByTrackingNumber = batchPerSubscription(recordsBy((trackingNumbers) => ({ trackingNumbers }), (r) => r.tracking_number))

  const writeResult = (row: { package_id: string; tracking_number: string }, attached: Awaited<ReturnType<ImagesService['attach']>>): WriteResult => ({
    packageId: row.package_id, trackingNumber: row.tracking_number,
    images: attached.map((a) => ({ imageId: a.imageId, tempURL: a.tempURL, contentType: a.contentType, imageType: a.imageType })),
  })

  return {
    async addPackage(actor: Actor, body: AddPackage, outcome?: RecordOutcome<WriteResult>): Promise<WriteResult> {
      checkTrackingNumber(body.package.trackingNumber, 'package.trackingNumber')
      const siteId = body.lastActivity?.location?.inboundSiteId ?? body.package.inboundSiteId ?? (await readers.sites.primarySiteId(actor.subId))
      const resolved = await resolveReferences(readers, actor.subId, {
        carrierId: body.package.carrier?.carrierId, sender: body.package.sender?.contactId, receiver: body.package.receiver?.contactId, givenTo: body.package.givenTo?.contactId,
        siteId, siteField: body.lastActivity?.location?.inboundSiteId ? 'lastActivity.location.inboundSiteId' : 'package.inboundSiteId',
        customFields: body.package.customFields, existingCustomFields: [], checkCustomFields: true,
      })
      const now = clock.now()
      const state = nextState(undefined, body, resolved, actor, now)
      const packageId = ids('pkg_')
      const first: PackageBefore = { package_id: packageId, version: 0, activity_count: 0, event_count: 0, previousStatus: null, wasAtSite: false, wasDamaged: false, previousLocker: { bank: null, unit: null } }
      const { activity, events } = changeRows(actor, first, state, body, resolved, now)
      const add: repo.NewPackage = {
        package: {
          ...state, package_id: packageId, sub_id: actor.subId, custom_fields: JSON.stringify(state.custom_fields), user_name: actor.userName,
          version: 1, activity_count: 1, event_count: events.length, created_at: now, updated_at: now,
        },
        activity,
        events,
      }
      const taken = () => new AppError(PACKAGE_ERRORS.TRACKING_NUMBER_EXISTS, { field: 'package.trackingNumber' })
      let attached: Awaited<ReturnType<ImagesService['attach']>> = []
      if (body.images?.length) {
        // Images need a transaction around the claims.
        attached = await inTransaction(db, async (trx) => {
          if (!(await repo.insertNewPackages(trx, [add])).has(packageId)) throw taken()
          const claimed = await images.attach(trx, actor.subId, packageId, activity.activity_id, body.images!)
          await outcome?.(trx, writeResult({ package_id: packageId, tracking_number: state.tracking_number }, claimed))
          return claimed
        })
      } else if (!(await addTogether({ add, outcome, result: writeResult({ package_id: packageId, tracking_number: state.tracking_number }, []) }))) {
        throw taken()
      }
      deps.onEventsCommitted?.()
      return writeResult({ package_id: packageId, tracking_number: state.tracking_number }, attached)
    },

    /**
     * Fields given replace, absent stay; one activity appended. References are checked first (other
     * domains read through their own connection). The change is computed from the row as read and
     * written in one statement guarded by that row's version: no transaction, no lock, two round
     * trips. When another change got in between, the row is read again and the change recomputed
     * from it; after OPTIMISTIC_ATTEMPTS, or with images to claim, under the row lock instead. Either
     * way concurrent updates serialise instead of overwriting each other.
     */
    async updatePackage(actor: Actor, packageId: string, body: UpdatePackage, ifMatch?: number) {
      if (body.package.trackingNumber !== undefined) checkTrackingNumber(body.package.trackingNumber, 'package.trackingNumber')
      const current = await rowById(actor.subId, packageId)
      if (!current) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
      const givenSite = body.lastActivity?.location?.inboundSiteId ?? body.package.inboundSiteId
      const refs = {
        carrierId: body.package.carrier?.carrierId, sender: body.package.sender?.contactId, receiver: body.package.receiver?.contactId, givenTo: body.package.givenTo?.contactId,
        siteField: body.lastActivity?.location?.inboundSiteId ? 'lastActivity.location.inboundSiteId' : 'package.inboundSiteId',
        customFields: body.package.customFields, existingCustomFields: current.custom_fields, checkCustomFields: body.package.customFields !== undefined,
      }
      const resolved = await withCurrentParties(actor.subId, await resolveReferences(readers, actor.subId, { ...refs, siteId: givenSite }), current)
      // An update that does not move the package keeps the site of the row it is computed from
      // (which a concurrent move may have changed since the first read), and shows it in its
      // events: its details are read outside any transaction (the sites domain reads through its
      // own connection), for the row last read.
      const siteOf = async (row: repo.PackageRow) => (row.site_id ? (await readers.sites.getInfos(actor.subId, [row.site_id])).get(row.site_id) : undefined)
      let rowSite = givenSite ? undefined : await siteOf(current)

      /** The change made from `row` (checked against it). */
      const changeFrom = (row: repo.PackageRow | undefined): repo.PackageChange => {
        if (!row) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
        if (ifMatch !== undefined && row.version !== ifMatch) throw new AppError('STALE_VERSION', { description: `The package is at version ${row.version}, not ${ifMatch}.` })
        if (row.archived) throw new AppError(PACKAGE_ERRORS.PACKAGE_ARCHIVED)
        // Under the row lock the site may have moved past the details read: the event then names it by id.
        const site = givenSite ? resolved.site : rowSite?.inboundSiteId === row.site_id ? rowSite : undefined
        const change: Resolved = { ...resolved, site }
        if (body.package.customFields !== undefined) {
          change.customFields = readers.checkCustomFieldValues(resolved.customFieldDefs, body.package.customFields, row.custom_fields, 'package.customFields')
        }
        const now = clock.now()
        return changeOf(actor, beforeChange(row), nextState(row, body, change, actor, now), body, change, now)
      }
      const result = (change: repo.PackageChange, attached: Awaited<ReturnType<ImagesService['attach']>>) => {
        deps.onEventsCommitted?.()
        return writeResult(change.package, attached)
      }
      try {
        if (!body.images?.length) {
          let row: repo.PackageRow | undefined = current
          for (let attempt = 1; ; attempt++) {
            const change = changeFrom(row)
            if (await changeTogether(change)) return result(change, [])
            if (attempt === OPTIMISTIC_ATTEMPTS) break
            row = await rowById(actor.subId, packageId)
            if (!givenSite && row && row.site_id !== rowSite?.inboundSiteId) rowSite = await siteOf(row)
          }
        }
        const [change, attached] = await inTransaction(db, async (trx) => {
          const change = changeFrom(await repo.findPackage(trx, actor.subId, packageId, { forUpdate: true }))
          return [change, await recordLocked(trx, change, body.images)] as const
        })
        return result(change, attached)
      } catch (e) {
        if (repo.isActiveTrackingConflict(e)) throw new AppError(PACKAGE_ERRORS.TRACKING_NUMBER_EXISTS, { field: 'package.trackingNumber' })
        throw e
      }
    },

    /** Archive (default) or un-archive; both are recorded as activities. Repeating the current state changes nothing. */
    async setArchived(actor: Actor, packageId: string, archived: boolean): Promise<{ packageId: string }> {
      // Read outside the transaction: the sites domain reads through its own connection.
      const before = await rowById(actor.subId, packageId)
      if (!before) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
      const sites = before.site_id ? await readers.sites.getInfos(actor.subId, [before.site_id]) : new Map<string, SiteInfo>()
      const parties = await withCurrentParties(actor.subId, { contacts: new Map(), site: sites.get(before.site_id ?? ''), customFieldDefs: [] }, before)
      try {
        await inTransaction(db, async (trx) => {
          const cur = await repo.findPackage(trx, actor.subId, packageId, { forUpdate: true })
          if (!cur) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
          if (cur.archived === archived) return
          const now = clock.now()
          const status = archived ? 'ARCHIVED' : ((await repo.lastStatusBefore(trx, actor.subId, packageId, 'ARCHIVED')) ?? 'RECEIVED')
          const state = { ...cur, current_status: status, archived, archived_at: archived ? now : null }
          await recordLocked(trx, changeOf(actor, beforeChange(cur), state, { package: {} }, parties, now), undefined)
        })
        deps.onEventsCommitted?.()
      } catch (e) {
        if (repo.isActiveTrackingConflict(e)) throw new AppError(PACKAGE_ERRORS.TRACKING_NUMBER_EXISTS, { description: 'Another active package has this tracking number; archive it first.' })
        throw e
      }
      return { packageId }
    },

    async getDetailed(subId: string, packageId: string): Promise<PackageRecord> {
      const rec = await recordById(subId, packageId)
      if (!rec) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
      return rec
    },

    /**
     * The DETAILED records of these packages, in the order of `packageIds` (a search page's);
     * unknown ids are left out. Read through the gathered record read, so the pages of concurrent
     * searches (and Gets) share one query per turn instead of a round trip each.
     */
    async recordsByIds(subId: string, packageIds: string[]): Promise<PackageRecord[]> {
      const recs = await Promise.all(packageIds.map((id) => recordById(subId, id)))
      return recs.filter((r): r is PackageRecord => r !== undefined)
    },

    /** The active package with this number (archived ones too when `includeArchived`), or undefined. */
    async findByTrackingNumber(subId: string, trackingNumber: string, includeArchived = false): Promise<PackageRecord | undefined> {
      const rec = await recordByTrackingNumber(subId, normalizeTrackingNumber(trackingNumber))
      return rec && (!rec.archived || includeArchived) ? rec : undefined
    },


    async getByTrackingNumber(subId: string, trackingNumber: string): Promise<PackageRecord> {
      const rec = await recordByTrackingNumber(subId, normalizeTrackingNumber(trackingNumber))
      if (!rec) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
      return rec
    },

    async getActivities(subId: string, packageId: string) {
      const row = await rowById(subId, packageId)
      if (!row) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
      const [acts, imgs] = await Promise.all([repo.listActivities(db, subId, packageId), images.listForPackage(subId, packageId)])
      const sites = await readers.sites.getInfos(subId, acts.map((a) => a.site_id).filter((x): x is string => !!x))
      return {
        packageId, trackingNumber: row.tracking_number,
        activities: acts.map((a) => {
          const s = a.site_id ? sites.get(a.site_id) : undefined
          const { locationId: _l, status: _s, deleted: _d, ...location } = s ?? ({} as Record<string, never>)
          return {
            activityId: a.activity_id, sequence: a.sequence, status: a.status, location: s ? location : undefined,
            packageLocation: a.package_location ?? undefined, lockerBank: a.locker_bank ?? undefined, lockerUnit: a.locker_unit ?? undefined,
            damaged: a.damaged, comment: a.comment ?? undefined, userName: a.user_name, ...(a.reported_by ? { reportedBy: a.reported_by } : {}), occurredAt: a.occurred_at.toISOString(),
            images: imgs.filter((i) => i.activityId === a.activity_id).map((i) => ({ imageId: i.imageId, tempURL: i.tempURL, contentType: i.contentType, imageType: i.imageType })),
          }
        }),
      }
    },

    async getImages(subId: string, packageId: string) {
      const row = await rowById(subId, packageId)
      if (!row) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
      return { packageId, trackingNumber: row.tracking_number, images: await images.listForPackage(subId, packageId) }
    },
  }
}
