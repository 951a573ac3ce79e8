import type { Executor } from '../platform/db/transaction.js'
import type { RecordOutcome } from '../platform/idempotency/outcome.js'
import type { Actor, PackagesService } from '../packages/index.js'
import type { SitesService } from '../sites/index.js'
import { AppError, invalid } from '../platform/kit/errors.js'
import { PICKUP_ERRORS } from './model/errors.js'
import { checkProof, proofNeeded, withSignatureFlags } from './model/proof.js'
import { pickupFees } from './model/fees.js'
import { createSelection, type SelectionDeps } from './selection.js'
import * as repo from './store/pickups.js'
import type { CreatePickup, ListPickupsQuery, Pickup } from './api/schemas.js'

export interface PickupsServiceDeps extends SelectionDeps {
  packages: SelectionDeps['packages'] & Pick<PackagesService, 'deliverTogether'>
  /** The hand-over proof rules of the packages' sites. */
  sites: Pick<SitesService, 'handOverRules'>
}

export type PickupsService = ReturnType<typeof createPickupsService>

const toPickup = (row: repo.PickupRow, inboundSites: Pickup['inboundSites']): Pickup => ({
  pickupId: row.pickup_id,
  ...(row.code ? { pickupCode: row.code } : {}),
  ...(row.contact_id ? { contactId: row.contact_id } : {}),
  packageIds: row.package_ids,
  deliveredAt: new Date(row.created_at).toISOString(),
  givenTo: {
    ...(row.given_to_contact_id ? { contactId: row.given_to_contact_id } : {}),
    name: row.given_to_name,
  },
  images: row.images,
  ...(row.comment ? { comment: row.comment } : {}),
  ...(row.typed_signature ? { typedSignature: row.typed_signature } : {}),
  ...(row.holding_fees ? { holdingFees: row.holding_fees } : {}),
  ...(row.delegate ? { delegate: true } : {}),
  userName: row.user_name,
  clerk: row.clerk,
  inboundSites,
})

/**
 * One-step pickup (issue 17.4): resolve the waiting packages (by code or contact, optionally a
 * subset) → check who collects and the proof their sites need → deliver them all in one transaction through the packages domain
 * (deliverTogether), which writes this pickup's row with them.
 */
export function createPickupsService(deps: PickupsServiceDeps) {
  const { db, ids, packages, contacts } = deps
  const { selectByCode, selectByContact, subset } = createSelection(deps)

  /** The signature rule of the packages' sites (issue 25 item 4): refused before anything is written. */
  async function checkSignature(
    trx: Executor,
    actor: Actor,
    siteIds: Array<string | null>,
    body: CreatePickup,
    flagged: Array<{ trackingNumber: string; flags: string[] }>,
  ): Promise<void> {
    const rules = await deps.sites.handOverRules(actor.subId, [...new Set(siteIds.filter((id) => id !== null))], trx)
    const need = proofNeeded(siteIds.map((id) => (id === null ? [] : (rules.get(id) ?? []))))
    checkProof(withSignatureFlags(need, flagged), {
      imageTypes: (body.images ?? []).map((i) => i.imageType),
      typedSignature: body.typedSignature,
    })
  }

  /** Who collects, by name, and whether on someone else's behalf. */
  async function collector(actor: Actor, body: CreatePickup, receiverId: string | undefined) {
    const given = body.givenTo ?? {}
    if (given.contactId !== undefined && given.name !== undefined)
      throw invalid('givenTo', 'givenTo is {contactId} or {name}, not both.')
    if (given.contactId === undefined && given.name === undefined && body.givenTo)
      throw invalid('givenTo', 'givenTo needs contactId or name.')
    const wanted = [given.contactId, receiverId].filter((x): x is string => x !== undefined)
    const known = await contacts.getByIds(actor.subId, wanted)
    const receiverName = receiverId ? known.get(receiverId)?.name : undefined
    if (given.contactId !== undefined) {
      const c = known.get(given.contactId)
      if (!c || c.deleted) throw invalid('givenTo.contactId', `No contact ${given.contactId}.`)
      const delegate =
        receiverId !== undefined &&
        c.contactId !== receiverId &&
        ((await contacts.delegatesOf(actor.subId, [receiverId])).get(receiverId) ?? []).includes(c.contactId)
      return {
        contactId: c.contactId,
        name: c.name,
        onBehalf: c.contactId !== receiverId ? receiverName : undefined,
        delegate,
      }
    }
    if (given.name !== undefined) return { name: given.name.trim(), onBehalf: receiverName, delegate: false }
    return { contactId: receiverId, name: receiverName ?? '', onBehalf: undefined, delegate: false }
  }

  /** Pickups as read back: on whose behalf (the receiver's name), where (the sites of their activities). */
  async function described(subId: string, rows: repo.PickupRow[]): Promise<Pickup[]> {
    const receivers = [
      ...new Set(rows.filter((r) => r.contact_id && r.contact_id !== r.given_to_contact_id).map((r) => r.contact_id!)),
    ]
    const [names, sites] = await Promise.all([
      contacts.getByIds(subId, receivers),
      repo.sitesOfPickups(
        db,
        subId,
        rows.map((r) => r.pickup_id),
      ),
    ])
    return rows.map((r) => {
      const p = toPickup(r, sites.get(r.pickup_id) ?? [])
      if (r.contact_id && r.contact_id !== r.given_to_contact_id) {
        const name = names.get(r.contact_id)?.name
        p.onBehalfOf = { contactId: r.contact_id, ...(name ? { name } : {}) }
      }
      return p
    })
  }

  return {
    async createPickup(actor: Actor, body: CreatePickup, outcome?: RecordOutcome<Pickup>): Promise<Pickup> {
      if ((body.pickupCode === undefined) === (body.contactId === undefined))
        throw invalid('pickupCode', 'Give pickupCode or contactId, one of them.')
      const selection =
        body.pickupCode !== undefined
          ? await selectByCode(actor, body.pickupCode)
          : await selectByContact(actor, body.contactId!)
      const packageIds = body.packageIds ? await subset(actor, selection, body.packageIds) : selection.packageIds
      const who = await collector(actor, body, selection.contactId)
      const typed = body.typedSignature?.trim()
      const pickupId = ids('pku_')
      const note = [
        `Pickup ${pickupId}: collected by ${who.name || 'the receiver'}${who.delegate ? ', a delegate,' : ''}${who.onBehalf ? ` on behalf of ${who.onBehalf}` : ''}.`,
        // A typed signature is recorded as typed, never passed off as drawn.
        typed ? `Signature typed by the collector: ${typed}.` : undefined,
        body.comment,
      ]
        .filter(Boolean)
        .join(' ')
      return packages.deliverTogether(actor, {
        packageIds,
        fieldOf: (i) => (body.packageIds ? `packageIds[${i}]` : selection.field),
        // The receiver collecting their own parcels is the DELIVERED rule's default (givenTo = receiver).
        givenToId: who.contactId !== selection.contactId ? who.contactId : undefined,
        givenToField: 'givenTo.contactId',
        comment: note.slice(0, 2000),
        pickupId,
        images: body.images,
        belongs: selection.belongs,
        // After the packages' own checks (waiting, the clerk's sites), as the rows are under their locks.
        verify: (trx, siteIds, flagged) => checkSignature(trx, actor, siteIds, body, flagged),
        within: async (trx, done) => {
          // The receipt's holding fees (issue 30): each parcel's site's fee, until this hand-over.
          const feeSites = [...new Set(done.packages.flatMap((p) => (p.siteId ? [p.siteId] : [])))]
          const fees = pickupFees(done.packages, await deps.sites.handOverRules(actor.subId, feeSites, trx), done.at)
          const pickup: Pickup = {
            pickupId,
            ...(selection.code ? { pickupCode: selection.code } : {}),
            ...(selection.contactId ? { contactId: selection.contactId } : {}),
            packageIds: done.packages.map((p) => p.packageId),
            deliveredAt: done.at.toISOString(),
            givenTo: { ...(who.contactId ? { contactId: who.contactId } : {}), name: who.name },
            ...(selection.contactId && who.contactId !== selection.contactId
              ? { onBehalfOf: { contactId: selection.contactId, ...(who.onBehalf ? { name: who.onBehalf } : {}) } }
              : {}),
            images: done.images.map((i) => ({
              imageId: i.imageId,
              imageType: i.imageType,
              contentType: i.contentType,
              tempURL: i.tempURL,
            })),
            ...(who.delegate ? { delegate: true } : {}),
            ...(body.comment ? { comment: body.comment } : {}),
            ...(typed ? { typedSignature: typed } : {}),
            ...(fees ? { holdingFees: fees } : {}),
            userName: actor.userName,
            clerk: actor.clerk,
            // The DELIVERED activities are written by now, in this transaction.
            inboundSites: (await repo.sitesOfPickups(trx, actor.subId, [pickupId])).get(pickupId) ?? [],
          }
          await repo.insertPickup(trx, {
            pickup_id: pickupId,
            sub_id: actor.subId,
            code: selection.code ?? null,
            contact_id: selection.contactId ?? null,
            given_to_contact_id: who.contactId ?? null,
            given_to_name: who.name,
            package_ids: pickup.packageIds,
            images: JSON.stringify(pickup.images),
            comment: body.comment ?? null,
            typed_signature: typed ?? null,
            holding_fees: fees ? JSON.stringify(fees) : null,
            delegate: who.delegate,
            user_name: actor.userName,
            clerk: actor.clerk,
            created_at: done.at,
          })
          await outcome?.(trx, pickup)
          return pickup
        },
      })
    },

    async getPickup(subId: string, pickupId: string): Promise<Pickup> {
      const row = await repo.findPickup(db, subId, pickupId)
      if (!row) throw new AppError(PICKUP_ERRORS.PICKUP_NOT_FOUND)
      return (await described(subId, [row]))[0]!
    },

    async listPickups(subId: string, q: ListPickupsQuery): Promise<{ pickups: Pickup[]; totalCount: number }> {
      if (q.from && q.to && Date.parse(q.from) >= Date.parse(q.to)) throw invalid('to', 'to must be after from.')
      const { rows, total } = await repo.listPickups(db, {
        subId,
        ...(q.contactId ? { contactId: q.contactId } : {}),
        ...(q.from ? { from: new Date(q.from) } : {}),
        ...(q.to ? { to: new Date(q.to) } : {}),
        offset: (q.page - 1) * q.size,
        limit: q.size,
      })
      return { pickups: await described(subId, rows), totalCount: total }
    },
  }
}
