import type { FailureLimiter } from '../access/index.js'
import type { Db } from '../platform/db/database.js'
import type { RecordOutcome } from '../platform/idempotency/outcome.js'
import type { ContactLike } from '../packages/index.js'
import type { Actor, PackagesService } from '../packages/index.js'
import { isOneOf, NOT_WAITING } from '../packages/index.js'
import { AppError, invalid, ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { normalizePickupCode, PICKUP_CODE_ALPHABET, PICKUP_CODE_LENGTH } from './model/pickup-code.js'
import { PICKUP_ERRORS } from './model/errors.js'
import * as repo from './store/pickups.js'
import type { CreatePickup, ListPickupsQuery, Pickup } from './api/schemas.js'

export interface PickupsServiceDeps {
  db: Db
  ids: IdGenerator
  packages: Pick<PackagesService, 'deliverTogether' | 'waitingPackages' | 'pickupCodeIssued' | 'rowById'>
  contacts: { getByIds(subId: string, ids: string[]): Promise<Map<string, ContactLike>> }
  /** Wrong codes, counted per API client and per subscription (see codeLimiterKeys). */
  codeLimiter: FailureLimiter
}

/**
 * The limiter's keys for a pickup by code. The limiter counts a (key, address) pair with the small
 * limit, the address with `addressFactor` times it and the key with `clientFactor` times it: here
 * the address is the API client and the key the subscription, so one client is stopped after the
 * limit and the subscription as a whole (every desk of it) after its multiple. Prefixed so that
 * they never meet the token endpoint's keys in the shared table.
 */
const codeLimiterKeys = (actor: Actor) => [`pickup:${actor.subId}`, `pickup-client:${actor.userName}`] as const

/** Who the pickup resolved: its packages, the code or contact it was made with, the receiver. */
interface Selection {
  code?: string
  contactId?: string
  packageIds: string[]
  /** The request field a package problem names when the request listed no packageIds. */
  field: 'pickupCode' | 'contactId'
  belongs: (row: { pickup_code: string | null; receiver_id: string | null }) => boolean
}

export type PickupsService = ReturnType<typeof createPickupsService>

/** How long a check may wait for the slot before a 429, and how long a hold lasts when its process dies. */
const SLOT_WAIT_MS = 5_000
const SLOT_HOLD_MS = 10_000

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
  userName: row.user_name,
  clerk: row.clerk,
  inboundSites,
})

/**
 * One-step pickup (issue 17.4): resolve the waiting packages (by code or contact, optionally a
 * subset) → check who collects → deliver them all in one transaction through the packages domain
 * (deliverTogether), which writes this pickup's row with them.
 */
export function createPickupsService(deps: PickupsServiceDeps) {
  const { db, ids, packages, contacts, codeLimiter } = deps

  /**
   * Runs `check` (the limit, the look-up, the count of a wrong code) holding the subscription's
   * check slot: every process's checks of one subscription run one after the other, so each one
   * sees the failures counted before it and a parallel burst of wrong codes cannot all pass the
   * limit before any is counted. The slot covers the look-up only, not the hand-over.
   */
  async function oneCheckAtATime<T>(subId: string, check: () => Promise<T>): Promise<T> {
    const holder = ids('chk_')
    const giveUpAt = Date.now() + SLOT_WAIT_MS
    for (let pause = 2; !(await repo.takeCheckSlot(db, subId, holder, SLOT_HOLD_MS)); pause = Math.min(pause * 2, 50)) {
      if (Date.now() > giveUpAt)
        throw new AppError(PICKUP_ERRORS.PICKUP_CODE_GUESSING, {
          field: 'pickupCode',
          description: 'Too many pickup codes being checked at once; retry in 1 s (or hand over by contactId).',
          headers: { 'Retry-After': '1' },
        })
      await new Promise((resolve) => setTimeout(resolve, pause))
    }
    try {
      return await check()
    } finally {
      await repo.releaseCheckSlot(db, subId, holder)
    }
  }

  async function selectByCode(actor: Actor, typed: string): Promise<Selection> {
    return oneCheckAtATime(actor.subId, () => checkCode(actor, typed))
  }

  /**
   * The limit, the look-up, the count: the attempt is counted before the code is looked up (one
   * atomic step in the limiter, on top of the slot), and given back when the code was right. No
   * description names the code: it is a secret, and descriptions reach the log (issue 26.9).
   */
  async function checkCode(actor: Actor, typed: string): Promise<Selection> {
    const [identity, address] = codeLimiterKeys(actor)
    const admission = await codeLimiter.admit({ identity, address })
    if (!admission.admitted)
      throw new AppError(PICKUP_ERRORS.PICKUP_CODE_GUESSING, {
        field: 'pickupCode',
        description: `Too many wrong pickup codes; retry in ${admission.retryAfterSeconds} s (or hand over by contactId).`,
        headers: { 'Retry-After': String(admission.retryAfterSeconds) },
      })
    const wrong = async (description: string): Promise<never> => {
      await codeLimiter.failed(admission.ticket)
      throw invalid('pickupCode', description)
    }
    const code = normalizePickupCode(typed)
    if (!code) return wrong(`Not a pickup code: ${PICKUP_CODE_LENGTH} characters of ${PICKUP_CODE_ALPHABET}.`)
    const waiting = await packages.waitingPackages(actor.subId, { code })
    if (waiting.length === 0)
      return wrong(
        (await packages.pickupCodeIssued(actor.subId, code))
          ? 'This pickup code has already been used: nothing is waiting under it.'
          : 'No such pickup code.',
      )
    await codeLimiter.succeeded(admission.ticket)
    return {
      code,
      contactId: waiting[0]!.receiver_id ?? undefined,
      packageIds: waiting.map((p) => p.package_id),
      field: 'pickupCode',
      belongs: (row) => row.pickup_code === code,
    }
  }

  async function selectByContact(actor: Actor, contactId: string): Promise<Selection> {
    const contact = (await contacts.getByIds(actor.subId, [contactId])).get(contactId)
    if (!contact || contact.deleted) throw invalid('contactId', `No contact ${contactId}.`)
    const waiting = await packages.waitingPackages(actor.subId, { receiverId: contactId })
    if (waiting.length === 0) throw invalid('contactId', `Nothing is waiting for contact ${contactId}.`)
    return {
      contactId,
      packageIds: waiting.map((p) => p.package_id),
      field: 'contactId',
      belongs: (row) => row.receiver_id === contactId,
    }
  }

  /** The subset the request lists: each one of the selection, each once; every problem at once. */
  async function subset(actor: Actor, selection: Selection, listed: string[]): Promise<string[]> {
    const selected = new Set(selection.packageIds)
    const seen = new Set<string>()
    const problems: Array<{ field: string; description: string }> = []
    for (const [i, id] of listed.entries()) {
      const field = `packageIds[${i}]`
      if (seen.has(id)) problems.push({ field, description: `Package ${id} is listed twice.` })
      seen.add(id)
      if (selected.has(id)) continue
      const row = await packages.rowById(actor.subId, id)
      const under = selection.code ? 'under this pickup code' : `for contact ${selection.contactId}`
      problems.push({
        field,
        description: !row
          ? `No package ${id}.`
          : row.archived || isOneOf(NOT_WAITING, row.current_status)
            ? `Package ${id} is ${row.archived ? 'archived' : row.current_status}: it is not waiting to be collected.`
            : `Package ${id} is not waiting ${under}.`,
      })
    }
    if (problems.length) throw new ValidationErrors(problems)
    return listed
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
      return { contactId: c.contactId, name: c.name, onBehalf: c.contactId !== receiverId ? receiverName : undefined }
    }
    if (given.name !== undefined) return { name: given.name.trim(), onBehalf: receiverName }
    return { contactId: receiverId, name: receiverName ?? '', onBehalf: undefined }
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
      const pickupId = ids('pku_')
      const note = [
        `Pickup ${pickupId}: collected by ${who.name || 'the receiver'}${who.onBehalf ? ` on behalf of ${who.onBehalf}` : ''}.`,
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
        within: async (trx, done) => {
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
            ...(body.comment ? { comment: body.comment } : {}),
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
