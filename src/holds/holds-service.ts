import type { ContactsService } from '../contacts/index.js'
import type { Actor } from '../packages/index.js'
import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, invalid } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { HOLD_ERRORS } from './model/errors.js'
import { firstDayOf, holdInForce, lastDayOf, spanOfDays } from './model/hold.js'
import * as repo from './store/holds.js'
import type { HoldRow } from './store/tables.js'

/** A contact shows at most this many holds, latest first (older ones stay in the table). */
const LISTED = 100

export interface Hold {
  holdId: string
  contactId: string
  startDate: string
  endDate: string
  reason: string
  inForce: boolean
  createdBy: string
  createdAt: string
}

export interface HoldsDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  contacts: Pick<ContactsService, 'getContact'>
}

export type HoldsService = ReturnType<typeof createHoldsService>

const spanOf = (r: HoldRow) => ({ startsAt: new Date(r.starts_at), endsAt: new Date(r.ends_at) })

/** Recipient holds (issue 30.2): a contact on vacation or leave, whose reminders pause meanwhile. */
export function createHoldsService(deps: HoldsDeps) {
  const { db, clock, ids, contacts } = deps

  const toHold = (r: HoldRow, now: Date): Hold => {
    const span = spanOf(r)
    return {
      holdId: r.hold_id,
      contactId: r.contact_id,
      startDate: firstDayOf(span),
      endDate: lastDayOf(span),
      reason: r.reason,
      inForce: holdInForce([span], now) !== undefined,
      createdBy: r.created_by,
      createdAt: new Date(r.created_at).toISOString(),
    }
  }

  return {
    /** A contact's holds, latest end first, and the last day of the one in force (the desk's "on hold until"). */
    async listHolds(subId: string, contactId: string): Promise<{ holds: Hold[]; onHoldUntil?: string }> {
      await contacts.getContact(subId, contactId)
      const now = clock.now()
      const rows = await repo.holdsOf(db, subId, contactId, LISTED)
      const current = holdInForce(
        rows.map((r) => ({ ...spanOf(r), r })),
        now,
      )
      return {
        holds: rows.map((r) => toHold(r, now)),
        ...(current ? { onHoldUntil: lastDayOf(current) } : {}),
      }
    },

    /** Puts a contact on hold from a day through a day; one that already ended is a 400. */
    async createHold(
      actor: Actor,
      contactId: string,
      body: { startDate: string; endDate: string; reason: string },
    ): Promise<Hold> {
      const reason = body.reason.trim()
      if (reason === '') throw invalid('reason', 'reason must not be blank.')
      if (body.endDate < body.startDate) throw invalid('endDate', 'endDate must be on or after startDate.')
      const span = spanOfDays(body.startDate, body.endDate)
      const now = clock.now()
      if (span.endsAt <= now)
        throw invalid('endDate', 'The hold would already be over: endDate must be today or later.')
      await contacts.getContact(actor.subId, contactId)
      const row: HoldRow = {
        hold_id: ids('hld_'),
        sub_id: actor.subId,
        contact_id: contactId,
        starts_at: span.startsAt,
        ends_at: span.endsAt,
        reason,
        created_by: actor.clerk,
        created_at: now,
      }
      await repo.insertHold(db, row)
      return toHold(row, now)
    },

    /** Lifts a hold: one not begun is cancelled, one in force ends now (store/holds.ts liftHold). */
    async liftHold(subId: string, contactId: string, holdId: string): Promise<void> {
      await contacts.getContact(subId, contactId)
      if (!(await repo.liftHold(db, subId, contactId, holdId, clock.now())))
        throw new AppError(HOLD_ERRORS.HOLD_NOT_FOUND)
    },
  }
}
