import { sql, type Expression } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { HoldRow } from './tables.js'

const COLUMNS = [
  'hold_id',
  'sub_id',
  'contact_id',
  'starts_at',
  'ends_at',
  'reason',
  'created_by',
  'created_at',
] as const

export async function insertHold(ex: Executor, row: HoldRow): Promise<void> {
  await ex.insertInto('recipient_holds').values(row).execute()
}

/** A contact's holds, latest end first (at most `limit`). */
export async function holdsOf(ex: Executor, subId: string, contactId: string, limit: number): Promise<HoldRow[]> {
  return ex
    .selectFrom('recipient_holds')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('contact_id', '=', contactId)
    .orderBy('ends_at', 'desc')
    .orderBy('hold_id')
    .limit(limit)
    .execute()
}

/** The holds of these contacts that end after `after` (current and future ones). */
export async function holdsEndingAfter(
  ex: Executor,
  subId: string,
  contactIds: string[],
  after: Date,
): Promise<HoldRow[]> {
  if (contactIds.length === 0) return []
  return ex
    .selectFrom('recipient_holds')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('contact_id', 'in', contactIds)
    .where('ends_at', '>', after)
    .orderBy('starts_at')
    .execute()
}

/**
 * Lifts a hold at `now`: one not begun is deleted; one begun ends now (kept, so the reminders it
 * paused count from its end, not from before it); one over stays as it was. False: no such hold.
 */
export async function liftHold(
  ex: Executor,
  subId: string,
  contactId: string,
  holdId: string,
  now: Date,
): Promise<boolean> {
  const deleted = await ex
    .deleteFrom('recipient_holds')
    .where('sub_id', '=', subId)
    .where('contact_id', '=', contactId)
    .where('hold_id', '=', holdId)
    .where('starts_at', '>=', now)
    .executeTakeFirst()
  if (deleted.numDeletedRows > 0n) return true
  const found = await ex
    .updateTable('recipient_holds')
    .set({ ends_at: sql<Date>`least(ends_at, ${now}::timestamptz)` })
    .where('sub_id', '=', subId)
    .where('contact_id', '=', contactId)
    .where('hold_id', '=', holdId)
    .executeTakeFirst()
  return found.numUpdatedRows > 0n
}

/**
 * SQL for the reminders' statement (notifications/store/reminders.ts), the SQL twin of
 * model/hold.ts `waitClockStart`: when a recipient's wait counts from, given it started at `since`:
 * the end of the latest hold that began by `now` and ran past `since`, else `since`. A hold in
 * force now ends after `now`, so nothing measured from it is due yet: the reminders pause, then
 * resume step by step from the hold's end instead of all at once.
 */
export const waitCountsFrom = (
  contactId: Expression<string>,
  subId: Expression<string>,
  since: Expression<Date>,
  now: Date,
) =>
  sql<Date>`greatest(${since}, (select max(h.ends_at) from recipient_holds h
    where h.sub_id = ${subId} and h.contact_id = ${contactId}
      and h.starts_at <= ${now}::timestamptz and h.ends_at > ${since}))`
