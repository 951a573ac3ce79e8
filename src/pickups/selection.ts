import type { FailureLimiter } from '../access/index.js'
import type { Db } from '../platform/db/database.js'
import type { ContactLike } from '../packages/index.js'
import type { Actor, PackagesService } from '../packages/index.js'
import { isOneOf, NOT_WAITING } from '../packages/index.js'
import { AppError, invalid, ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { normalizePickupCode, PICKUP_CODE_ALPHABET, PICKUP_CODE_LENGTH } from './model/pickup-code.js'
import { PICKUP_ERRORS } from './model/errors.js'
import * as repo from './store/pickups.js'

// A pickup's first step: which waiting packages it hands over (by code, limited against guessing,
// or by contact; optionally a subset). The hand-over itself is service.ts.

export interface SelectionDeps {
  db: Db
  ids: IdGenerator
  packages: Pick<PackagesService, 'waitingPackages' | 'pickupCodeIssued' | 'rowById'>
  contacts: {
    getByIds(subId: string, ids: string[]): Promise<Map<string, ContactLike>>
    /** Contacts allowed to collect for each (a hand-over to one is recorded as such). */
    delegatesOf(subId: string, ids: string[]): Promise<Map<string, string[]>>
  }
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
export interface Selection {
  code?: string
  contactId?: string
  packageIds: string[]
  /** The request field a package problem names when the request listed no packageIds. */
  field: 'pickupCode' | 'contactId'
  belongs: (row: { pickup_code: string | null; receiver_id: string | null }) => boolean
}

/** How long a check may wait for the slot before a 429, and how long a hold lasts when its process dies. */
const SLOT_WAIT_MS = 5_000
const SLOT_HOLD_MS = 10_000

export function createSelection(deps: SelectionDeps) {
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

  return { selectByCode, selectByContact, subset }
}
