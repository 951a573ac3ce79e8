import type { Db } from '../platform/db/database.js'
import { inTransaction, type Trx } from '../platform/db/transaction.js'
import type { RecordOutcome } from '../platform/idempotency/outcome.js'
import type { ImagesService } from '../images/index.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import type { SiteInfo } from '../sites/index.js'
import type { PackageReaders } from './model/deps.js'
import { PACKAGE_ERRORS } from './model/errors.js'
import { createHandover } from './model/handover.js'
import { checkSiteScope } from './model/site-scope.js'
import { createPackageQueries } from './model/queries.js'
import * as repo from './store/packages.js'
import { oldestWaiting, waitingArrivedBefore, waitingAtSite } from './store/at-site.js'
import { resolveReferences, type Resolved } from './model/resolve.js'
import { beforeChange, changeOf, newPackageOf, nextState, withPickupCandidate, type Actor } from './model/rules.js'
import type { AddPackage, UpdatePackage } from './api/schemas.js'
import { createPackageWriter } from './model/writes.js'
import { checkTrackingNumber } from './model/tracking-number.js'
import { partiesOf, siteFieldOf, writeResult, type Attached, type WriteResult } from './model/write-input.js'

export type { Actor } from './model/rules.js'

export interface PackagesServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  readers: PackageReaders
  images: ImagesService
  /** A new random pickup code (pickups/pickup-code.ts), for a package that arrives waiting. */
  newPickupCode: () => string
  /** Called once a change's outbox events are committed (events/signal.ts: this process's consumers look at once). */
  onEventsCommitted?: () => void
}

/** Optimistic tries of an update before it takes the row lock (a package rarely changes twice at once). */
const OPTIMISTIC_ATTEMPTS = 2

export type PackagesService = ReturnType<typeof createPackagesService>

/**
 * The commands of the packages domain, each a chain of named steps: resolve (read and check what
 * the change refers to, outside any transaction: other domains read through their own
 * connection) → compute (the pure rules, packages/model/rules.ts) → write (packages/model/writes.ts). The reads
 * are packages/model/queries.ts.
 */
export function createPackagesService(deps: PackagesServiceDeps) {
  const { db, clock, ids, readers, images } = deps
  const queries = createPackageQueries({ db, readers, images, clock })
  const writer = createPackageWriter<WriteResult>({
    db,
    images,
    newPickupCode: deps.newPickupCode,
  })
  const committed = () => deps.onEventsCommitted?.()

  /**
   * Events carry the package's receiver and carrier even when the change did not name them: load
   * the current ones before the transaction.
   */
  async function withCurrentParties(subId: string, resolved: Resolved, row: repo.PackageRow): Promise<Resolved> {
    const receiverId = row.receiver_id
    const [contacts, carriers] = await Promise.all([
      receiverId && !resolved.contacts.has(receiverId)
        ? readers.contacts.getByIds(subId, [receiverId])
        : Promise.resolve(new Map<string, never>()),
      row.carrier_id && !resolved.carrier
        ? readers.carriers.getVisible(subId, [row.carrier_id])
        : Promise.resolve(new Map<string, never>()),
    ])
    for (const [id, c] of contacts) resolved.contacts.set(id, c)
    return { ...resolved, carrier: resolved.carrier ?? (row.carrier_id ? carriers.get(row.carrier_id) : undefined) }
  }

  /** Add, resolve: the number's shape, the site (default the primary one), every reference. */
  async function resolveAdd(actor: Actor, body: AddPackage): Promise<Resolved> {
    checkTrackingNumber(body.package.trackingNumber, 'package.trackingNumber')
    const siteId =
      body.lastActivity?.location?.inboundSiteId ??
      body.package.inboundSiteId ??
      (await readers.sites.primarySiteId(actor.subId))
    return resolveReferences(readers, actor.subId, {
      ...partiesOf(body),
      siteId,
      siteField: siteFieldOf(body),
      customFields: body.package.customFields,
      existingCustomFields: [],
      checkCustomFields: true,
    })
  }

  /** Add, write: with images in a transaction around their claims, else gathered with concurrent adds. False: the number is taken. */
  async function writeAdd(
    actor: Actor,
    add: repo.NewPackage,
    toAttach: AddPackage['images'],
    outcome: RecordOutcome<WriteResult> | undefined,
  ): Promise<Attached | undefined> {
    const packageId = add.package.package_id
    if (!toAttach?.length)
      return (await writer.addTogether({ add, outcome, result: writeResult(add.package, []) })) ? [] : undefined
    return inTransaction(db, async (trx) => {
      if (!(await writer.insertNewPackages(trx, [add])).has(packageId)) return undefined
      const claimed = await images.attach(trx, actor.subId, packageId, add.activity.activity_id, toAttach)
      await outcome?.(trx, writeResult(add.package, claimed))
      return claimed
    })
  }

  /** Update, resolve: the row as it is, the references the body names, the parties its events carry. */
  async function resolveUpdate(actor: Actor, packageId: string, body: UpdatePackage) {
    if (body.package.trackingNumber !== undefined)
      checkTrackingNumber(body.package.trackingNumber, 'package.trackingNumber')
    const current = await queries.rowById(actor.subId, packageId)
    if (!current) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
    const givenSite = body.lastActivity?.location?.inboundSiteId ?? body.package.inboundSiteId
    const resolved = await withCurrentParties(
      actor.subId,
      await resolveReferences(readers, actor.subId, {
        ...partiesOf(body),
        siteId: givenSite,
        siteField: siteFieldOf(body),
        customFields: body.package.customFields,
        existingCustomFields: current.custom_fields,
        checkCustomFields: body.package.customFields !== undefined,
      }),
      current,
    )
    return { current, givenSite, resolved }
  }

  /** Update, compute: the change made from `row`, checked against it (If-Match, archived), its custom fields merged into the row's. */
  function computeUpdate(
    actor: Actor,
    body: UpdatePackage,
    row: repo.PackageRow | undefined,
    resolved: Resolved,
    ifMatch: number | undefined,
  ): repo.PackageChange {
    if (!row) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
    if (ifMatch !== undefined && row.version !== ifMatch)
      throw new AppError('STALE_VERSION', { description: `The package is at version ${row.version}, not ${ifMatch}.` })
    if (row.archived) throw new AppError(PACKAGE_ERRORS.PACKAGE_ARCHIVED)
    const change: Resolved = { ...resolved }
    if (body.package.customFields !== undefined) {
      change.customFields = readers.checkCustomFieldValues(
        resolved.customFieldDefs,
        body.package.customFields,
        row.custom_fields,
        'package.customFields',
      )
    }
    const now = clock.now()
    return withPickupCandidate(
      changeOf(ids, actor, beforeChange(row), nextState(row, body, change, actor, now), body, change, now),
      row,
      deps.newPickupCode,
    )
  }

  const trackingConflict = (e: unknown, detail: { field?: string; description?: string }) =>
    repo.isActiveTrackingConflict(e) ? new AppError(PACKAGE_ERRORS.TRACKING_NUMBER_EXISTS, detail) : e

  return {
    ...queries,
    ...createHandover({ db, clock, ids, readers, images, committed, writeChanges: writer.writeChanges }),

    /** The subscription's waiting packages under a pickup code, or for a receiver (a pickup's resolution). */
    waitingPackages: (subId: string, by: { code: string } | { receiverId: string }) => repo.findWaiting(db, subId, by),

    /** The ids of the packages waiting at exactly this site, oldest first (a shelf audit's expected list). */
    waitingAtSite: (subId: string, siteId: string, limit: number) => waitingAtSite(db, subId, siteId, limit),

    /** The packages waiting longest, of the subscription or at these sites (the reports' oldest waiting). */
    oldestWaiting: (subId: string, q: { siteIds?: string[]; limit: number }) => oldestWaiting(db, subId, q),

    /** Waiting packages that arrived before a time, oldest first, by keyset (return proposals, issue 30.2). */
    waitingArrivedBefore: (subId: string, q: Parameters<typeof waitingArrivedBefore>[2]) =>
      waitingArrivedBefore(db, subId, q),

    /** Whether the subscription ever handed out this pickup code. */
    pickupCodeIssued: (subId: string, code: string) => repo.pickupCodeIssued(db, subId, code),

    /** Add: resolve → compute → write; one activity and its events with the package, in one commit. */
    async addPackage(actor: Actor, body: AddPackage, outcome?: RecordOutcome<WriteResult>): Promise<WriteResult> {
      const resolved = await resolveAdd(actor, body)
      await checkSiteScope(readers, actor, undefined, resolved.site, siteFieldOf(body))
      const add = newPackageOf(ids, actor, body, resolved, clock.now(), deps.newPickupCode)
      const attached = await writeAdd(actor, add, body.images, outcome)
      if (!attached) throw new AppError(PACKAGE_ERRORS.TRACKING_NUMBER_EXISTS, { field: 'package.trackingNumber' })
      committed()
      return writeResult(add.package, attached)
    },

    /**
     * Fields given replace, absent stay; one activity appended. The change is computed from the row
     * as read and written in one statement guarded by that row's version: no transaction, no lock,
     * two round trips. When another change got in between, the row is read again and the change
     * recomputed from it; after OPTIMISTIC_ATTEMPTS, or with images to claim, under the row lock
     * instead. Either way concurrent updates serialise instead of overwriting each other.
     * `first` (another domain's claim, e.g. a scan issue settled) runs in the update's transaction
     * before the row lock: when it throws, nothing is written and no event is emitted.
     */
    async updatePackage(
      actor: Actor,
      packageId: string,
      body: UpdatePackage,
      ifMatch?: number,
      first?: (trx: Trx) => Promise<void>,
    ) {
      const { current, givenSite, resolved } = await resolveUpdate(actor, packageId, body)
      await checkSiteScope(readers, actor, current.site_id, givenSite ? resolved.site : undefined, siteFieldOf(body))
      // An update that does not move the package keeps the site of the row it is computed from
      // (which a concurrent move may have changed since the first read), and shows it in its
      // events: its details are read outside any transaction, for the row last read.
      const siteOf = async (row: repo.PackageRow) =>
        row.site_id ? (await readers.sites.getInfos(actor.subId, [row.site_id])).get(row.site_id) : undefined
      let rowSite = givenSite ? undefined : await siteOf(current)
      // Under the row lock the site may have moved past the details read: the event then names it by id.
      const changeFrom = (row: repo.PackageRow | undefined) =>
        computeUpdate(
          actor,
          body,
          row,
          {
            ...resolved,
            site: givenSite ? resolved.site : rowSite?.inboundSiteId === row?.site_id ? rowSite : undefined,
          },
          ifMatch,
        )
      const done = (change: repo.PackageChange, attached: Attached) => {
        committed()
        return writeResult(change.package, attached)
      }
      try {
        if (!body.images?.length && !first) {
          let row: repo.PackageRow | undefined = current
          for (let attempt = 1; ; attempt++) {
            const change = changeFrom(row)
            if (await writer.changeTogether(change)) return done(change, [])
            if (attempt === OPTIMISTIC_ATTEMPTS) break
            row = await queries.rowById(actor.subId, packageId)
            if (!givenSite && row && row.site_id !== rowSite?.inboundSiteId) rowSite = await siteOf(row)
          }
        }
        const [change, attached] = await inTransaction(db, async (trx) => {
          await first?.(trx)
          const change = changeFrom(await repo.findPackage(trx, actor.subId, packageId, { forUpdate: true }))
          return [change, await writer.recordLocked(trx, change, body.images)] as const
        })
        return done(change, attached)
      } catch (e) {
        throw trackingConflict(e, { field: 'package.trackingNumber' })
      }
    },

    /** Archive (default) or un-archive; both are recorded as activities. Repeating the current state changes nothing. */
    async setArchived(actor: Actor, packageId: string, archived: boolean): Promise<{ packageId: string }> {
      const before = await queries.rowById(actor.subId, packageId)
      if (!before) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
      await checkSiteScope(readers, actor, before.site_id, undefined, 'packageId')
      const sites = before.site_id
        ? await readers.sites.getInfos(actor.subId, [before.site_id])
        : new Map<string, SiteInfo>()
      const parties = await withCurrentParties(
        actor.subId,
        { contacts: new Map(), site: sites.get(before.site_id ?? ''), customFieldDefs: [] },
        before,
      )
      try {
        await inTransaction(db, async (trx) => {
          const cur = await repo.findPackage(trx, actor.subId, packageId, { forUpdate: true })
          if (!cur) throw new AppError(PACKAGE_ERRORS.PACKAGE_NOT_FOUND)
          if (cur.archived === archived) return
          const now = clock.now()
          const status = archived
            ? 'ARCHIVED'
            : ((await repo.lastStatusBefore(trx, actor.subId, packageId, 'ARCHIVED')) ?? 'RECEIVED')
          const state = { ...cur, current_status: status, archived, archived_at: archived ? now : null }
          await writer.recordLocked(
            trx,
            withPickupCandidate(
              changeOf(ids, actor, beforeChange(cur), state, { package: {} }, parties, now),
              cur,
              deps.newPickupCode,
            ),
            undefined,
          )
        })
        committed()
      } catch (e) {
        throw trackingConflict(e, { description: 'Another active package has this tracking number; archive it first.' })
      }
      return { packageId }
    },
  }
}
