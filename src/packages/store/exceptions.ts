import { sql, type SqlBool } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import { NOT_WAITING, PACKAGE_STATUSES } from '../model/statuses.js'

// The exceptions list's questions to the packages domain (issue 30.3): parcels still waiting that
// need something done, oldest first, and how many. Each reads an index that holds only its rows
// (migration 0079) or the waiting statuses' range of packages_status_created_idx: never the table.

/** What about a waiting parcel the exceptions ask: any (past a day), damaged, or received with no known carrier. */
export type WaitingConcern = 'waiting' | 'damaged' | 'unknown_carrier'

export interface WaitingRow {
  package_id: string
  site_id: string | null
  created_at: Date
  updated_at: Date
}

const WAITING_STATUSES = PACKAGE_STATUSES.filter((s) => !(NOT_WAITING as readonly string[]).includes(s))

// Written as literals, exactly as migration 0079's index predicates, so PostgreSQL proves them.
const WAITING = `not archived and current_status not in (${NOT_WAITING.map((s) => `'${s}'`).join(', ')})`
const CONCERNS: Record<Exclude<WaitingConcern, 'waiting'>, string> = {
  damaged: `damaged and ${WAITING}`,
  unknown_carrier: `(carrier_id is null or (carrier_id = 'MAILROOM' and tracking_number not like 'MR%')) and ${WAITING}`,
}

interface ConcernQuery {
  concern: WaitingConcern
  /** Arrived before this (unclaimed past N days). */
  before?: Date
  /** At one of these sites (a site and the sites under it); undefined: anywhere. */
  siteIds?: string[]
}

function base(db: Executor, subId: string, q: ConcernQuery) {
  let sel = db.selectFrom('packages').where('sub_id', '=', subId)
  sel =
    q.concern === 'waiting'
      ? sel.where('current_status', 'in', WAITING_STATUSES).where('archived', '=', false)
      : sel.where(sql<SqlBool>`${sql.raw(CONCERNS[q.concern])}`)
  if (q.before) sel = sel.where('created_at', '<', q.before)
  if (q.siteIds) sel = sel.where('site_id', 'in', q.siteIds)
  return sel
}

/** The oldest waiting parcels of one concern, `limit` from `offset`. */
export async function oldestWaiting(
  db: Executor,
  subId: string,
  q: ConcernQuery & { offset: number; limit: number },
): Promise<WaitingRow[]> {
  if (q.siteIds?.length === 0 || q.limit <= 0) return []
  return base(db, subId, q)
    .select(['package_id', 'site_id', 'created_at', 'updated_at'])
    .orderBy('created_at')
    .orderBy('package_id')
    .offset(q.offset)
    .limit(q.limit)
    .execute()
}

export async function countWaiting(db: Executor, subId: string, q: ConcernQuery): Promise<number> {
  if (q.siteIds?.length === 0) return 0
  const r = await base(db, subId, q)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(r.n)
}

/** Which of these parcels still wait (at one of `siteIds`, when given): a primary-key probe each. */
export async function waitingAmong(
  db: Executor,
  subId: string,
  packageIds: string[],
  siteIds?: string[],
): Promise<WaitingRow[]> {
  if (packageIds.length === 0 || siteIds?.length === 0) return []
  let sel = db
    .selectFrom('packages')
    .select(['package_id', 'site_id', 'created_at', 'updated_at'])
    .where('sub_id', '=', subId)
    .where('package_id', 'in', [...new Set(packageIds)])
    .where('current_status', 'in', WAITING_STATUSES)
    .where('archived', '=', false)
  if (siteIds) sel = sel.where('site_id', 'in', siteIds)
  return sel.execute()
}
