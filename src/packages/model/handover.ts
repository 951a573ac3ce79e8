import type { Db } from '../../platform/db/database.js'
import { inTransaction, type Executor } from '../../platform/db/transaction.js'
import type { ImagesService } from '../../images/index.js'
import type { Clock } from '../../platform/kit/clock.js'
import { ValidationErrors } from '../../platform/kit/errors.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import type { SiteInfo } from '../../sites/index.js'
import type { ContactLike, PackageReaders } from './deps.js'
import * as repo from '../store/packages.js'
import { resolveReferences, type Resolved } from './resolve.js'
import { beforeChange, changeOf, nextState, withinScope, type Actor, type Body } from './rules.js'
import { isOneOf, NOT_WAITING } from './statuses.js'

type Attached = Awaited<ReturnType<ImagesService['attach']>>

/** One package of a hand-over as it was delivered. */
export interface HandedOver {
  packageId: string
  trackingNumber: string
  receiverId: string | null
  activityId: string
  /** Where it waited and since when (its holding fee counts from there), and its flags. */
  siteId: string | null
  arrivedAt: Date
  flags: string[]
}

/**
 * Several waiting packages handed over together (a one-step pickup, issue 17.4): what to deliver,
 * to whom, and what the caller writes in the same transaction.
 */
export interface Handover<R> {
  /** The packages, in the caller's order; `fieldOf(i)` is the request field that names the i-th. */
  packageIds: string[]
  fieldOf: (i: number) => string
  /** The contact who collects; absent: each package's receiver (the DELIVERED rule). */
  givenToId?: string
  /** The request field that names givenToId. */
  givenToField: string
  /** The comment of each package's DELIVERED activity. */
  comment: string
  /** Put on each DELIVERED activity: the history names the pickup. */
  pickupId: string
  /** Proof of the hand-over (signature, photo), attached to the first package's DELIVERED activity. */
  images?: Array<{ imageType: 'SIGNATURE' | 'PHOTO'; tempURL: string; contentType?: string }>
  /** Checked again under the row locks: the package still belongs to the pickup (its code, its receiver). */
  belongs: (row: repo.PackageRow) => boolean
  /**
   * The caller's own check (the proof the packages' sites ask for), under the row locks, once every
   * package passed its own: given the transaction and each locked package's current site (null: none).
   */
  verify?: (
    trx: Executor,
    siteIds: Array<string | null>,
    flagged: Array<{ trackingNumber: string; flags: string[] }>,
  ) => Promise<void>
  /** The caller's rows (the pickup record, the Idempotency-Key answer), written in the same transaction. */
  within: (trx: Executor, done: { at: Date; packages: HandedOver[]; images: Attached }) => Promise<R>
}

/** Why a package cannot be handed over: undefined when it can. */
function refusal(row: repo.PackageRow | undefined, id: string, belongs: (row: repo.PackageRow) => boolean) {
  if (!row) return `No package ${id}.`
  if (row.archived || isOneOf(NOT_WAITING, row.current_status))
    return `Package ${id} is ${row.archived ? 'archived' : row.current_status}: it is not waiting to be collected.`
  if (!belongs(row)) return `Package ${id} is not waiting under this pickup.`
  return undefined
}

/**
 * Delivers several waiting packages in one transaction: each becomes DELIVERED by the same rules,
 * with the same activity and outbox events, as an Update to DELIVERED (packages/model/rules.ts), all
 * written by one statement (the writer's writeChanges: repo.writeChanges with the observer), so that whatever watches that transaction's events
 * sees the packages of one hand-over together. All or nothing: one package that cannot be handed
 * over is a 400 naming it, and nothing is written.
 */
export function createHandover(deps: {
  db: Db
  clock: Clock
  ids: IdGenerator
  readers: PackageReaders
  images: ImagesService
  committed: () => void
  /** The writer's writeChanges (packages/model/writes.ts): the statement, and its events shown to the observer in the transaction. */
  writeChanges: (trx: Executor, changes: readonly repo.PackageChange[]) => Promise<Set<string>>
}) {
  const { db, clock, ids, readers, images } = deps

  /** Resolve: the rows as they are, each checked; the contacts, carriers and sites their events carry. */
  async function resolve(actor: Actor, h: Handover<unknown>) {
    const rows = new Map((await repo.findPackages(db, actor.subId, h.packageIds)).map((r) => [r.package_id, r]))
    const problems = h.packageIds.flatMap((id, i) => {
      const why = refusal(rows.get(id), id, h.belongs)
      return why ? [{ field: h.fieldOf(i), description: why }] : []
    })
    if (problems.length) throw new ValidationErrors(problems)
    let given: Resolved
    try {
      given = await resolveReferences(readers, actor.subId, {
        givenTo: h.givenToId,
        siteField: h.givenToField,
        existingCustomFields: [],
        checkCustomFields: false,
      })
    } catch (e) {
      if (!(e instanceof ValidationErrors)) throw e
      throw new ValidationErrors(e.items.map((i) => ({ ...i, field: h.givenToField })))
    }
    const all = [...rows.values()]
    const receiverIds = [...new Set(all.flatMap((r) => (r.receiver_id ? [r.receiver_id] : [])))]
    const carrierIds = [...new Set(all.flatMap((r) => (r.carrier_id ? [r.carrier_id] : [])))]
    const siteIds = [...new Set(all.flatMap((r) => (r.site_id ? [r.site_id] : [])))]
    const [receivers, carriers, sites] = await Promise.all([
      readers.contacts.getByIds(actor.subId, receiverIds),
      carrierIds.length ? readers.carriers.getVisible(actor.subId, carrierIds) : new Map<string, never>(),
      siteIds.length ? readers.sites.getInfos(actor.subId, siteIds) : new Map<string, SiteInfo>(),
    ])
    const contacts = new Map<string, ContactLike>([...receivers, ...given.contacts])
    // Each package's references as its events name them; a site moved since is named by id alone.
    return (row: repo.PackageRow): Resolved => ({
      contacts,
      carrier: row.carrier_id ? carriers.get(row.carrier_id) : undefined,
      site: row.site_id ? sites.get(row.site_id) : undefined,
      customFieldDefs: [],
    })
  }

  /** Compute, under the row locks: each package's change to DELIVERED, checked again as the rows are now. */
  function compute(
    actor: Actor,
    h: Handover<unknown>,
    locked: repo.PackageRow[],
    refs: (r: repo.PackageRow) => Resolved,
  ) {
    const rows = new Map(locked.map((r) => [r.package_id, r]))
    const now = clock.now()
    const body: Body = {
      package: h.givenToId ? { givenTo: { contactId: h.givenToId } } : {},
      lastActivity: { status: 'DELIVERED', comment: h.comment },
    }
    const problems: Array<{ field: string; description: string }> = []
    const changes = h.packageIds.flatMap((id, i) => {
      const row = rows.get(id)
      const why = refusal(row, id, h.belongs)
      if (why || !row) {
        problems.push({ field: h.fieldOf(i), description: why ?? `No package ${id}.` })
        return []
      }
      // Without a receiver and without a givenTo contact, DELIVERED has no one to name (packages/model/rules.ts).
      if (!h.givenToId && !row.receiver_id) {
        problems.push({
          field: h.fieldOf(i),
          description: `Package ${id} has no receiver: hand it over to a contact (givenTo.contactId).`,
        })
        return []
      }
      const resolved = refs(row)
      if (actor.siteScope !== undefined && !withinScope(actor.siteScope, resolved.site)) {
        problems.push({
          field: h.fieldOf(i),
          description: `Package ${id} is at a site outside the sites this user works at (site ${actor.siteScope} and below).`,
        })
        return []
      }
      const change = changeOf(
        ids,
        actor,
        beforeChange(row),
        nextState(row, body, resolved, actor, now),
        body,
        resolved,
        now,
      )
      change.activity.pickup_id = h.pickupId
      return [change]
    })
    if (problems.length) throw new ValidationErrors(problems)
    return { now, changes }
  }

  return {
    /** See Handover; answers what `within` returned. */
    async deliverTogether<R>(actor: Actor, h: Handover<R>): Promise<R> {
      if (new Set(h.packageIds).size !== h.packageIds.length) throw new Error('deliverTogether: a package twice')
      const refs = await resolve(actor, h)
      const result = await inTransaction(db, async (trx) => {
        const locked = await repo.lockPackages(trx, actor.subId, h.packageIds)
        const { now, changes } = compute(actor, h, locked, refs)
        await h.verify?.(
          trx,
          locked.map((row) => row.site_id),
          locked.map((row) => ({ trackingNumber: row.tracking_number, flags: row.flags })),
        )
        const written = await deps.writeChanges(trx, changes)
        if (written.size !== changes.length) throw new Error('a package changed under its row lock')
        const first = changes[0]!
        const attached = h.images?.length
          ? await images.attach(
              trx,
              actor.subId,
              first.package.package_id,
              first.activity.activity_id,
              h.images.map((img) => ({ imageLevel: 'ACTIVITY' as const, ...img })),
            )
          : []
        const packages = changes.map((c) => ({
          packageId: c.package.package_id,
          trackingNumber: c.package.tracking_number,
          receiverId: c.package.receiver_id,
          activityId: c.activity.activity_id,
          siteId: c.package.site_id ?? null,
          arrivedAt: new Date(c.package.site_arrived_at ?? now),
          flags: c.package.flags ?? [],
        }))
        return h.within(trx, { at: now, packages, images: attached })
      })
      deps.committed()
      return result
    },
  }
}
