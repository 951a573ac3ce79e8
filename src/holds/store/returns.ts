import { sql } from 'kysely'
import { packageWaiting } from '../../packages/index.js'
import type { Executor } from '../../platform/db/transaction.js'
import type { ProposalRow } from './tables.js'

const PROPOSAL_COLUMNS = [
  'proposal_id',
  'sub_id',
  'package_id',
  'site_id',
  'deadline_days',
  'received_at',
  'proposed_at',
  'status',
  'shown_from',
  'decided_by',
  'decided_at',
] as const

/** The subscription's own return deadlines by site id (inheritance is model/deadline.ts's). */
export async function deadlinesOf(ex: Executor, subId: string): Promise<Map<string, number>> {
  const rows = await ex
    .selectFrom('site_return_deadlines')
    .select(['site_id', 'days'])
    .where('sub_id', '=', subId)
    .execute()
  return new Map(rows.map((r) => [r.site_id, r.days]))
}

/** The subscriptions that set a return deadline somewhere: the only ones the proposal job looks at. */
export async function subscriptionsWithDeadlines(ex: Executor): Promise<string[]> {
  const rows = await ex.selectFrom('site_return_deadlines').select('sub_id').distinct().orderBy('sub_id').execute()
  return rows.map((r) => r.sub_id)
}

export async function setDeadline(ex: Executor, subId: string, siteId: string, days: number | null, at: Date) {
  if (days === null) {
    await ex.deleteFrom('site_return_deadlines').where('sub_id', '=', subId).where('site_id', '=', siteId).execute()
    return
  }
  await ex
    .insertInto('site_return_deadlines')
    .values({ sub_id: subId, site_id: siteId, days, updated_at: at })
    .onConflict((oc) => oc.columns(['sub_id', 'site_id']).doUpdateSet({ days, updated_at: at }))
    .execute()
}

/** Proposes each parcel once: a parcel already proposed (in any state) is left as it is. Returns how many are new. */
export async function insertProposals(ex: Executor, rows: ProposalRow[]): Promise<number> {
  if (rows.length === 0) return 0
  const r = await ex
    .insertInto('return_proposals')
    .values(rows)
    .onConflict((oc) => oc.columns(['sub_id', 'package_id']).doNothing())
    .returning('proposal_id')
    .execute()
  return r.length
}

/**
 * The open proposals listed at `now` (an extension hides one until its end) whose parcel still
 * waits (a parcel handed over or returned otherwise drops out), oldest arrival first.
 */
export async function openProposals(
  ex: Executor,
  subId: string,
  q: { now: Date; siteIds?: string[]; skip: number; limit: number },
): Promise<{ rows: ProposalRow[]; total: number }> {
  if (q.siteIds?.length === 0) return { rows: [], total: 0 }
  const base = ex
    .selectFrom('return_proposals as rp')
    .where('rp.sub_id', '=', subId)
    .where('rp.status', '=', 'open')
    .where('rp.shown_from', '<=', q.now)
    .where(packageWaiting(sql.ref('rp.package_id'), sql.ref('rp.sub_id')))
    .$if(q.siteIds !== undefined, (b) => b.where('rp.site_id', 'in', q.siteIds!))
  const [rows, count] = await Promise.all([
    base
      .select(PROPOSAL_COLUMNS.map((c) => `rp.${c}` as const))
      .orderBy('rp.received_at')
      .orderBy('rp.proposal_id')
      .offset(q.skip)
      .limit(q.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.n) }
}

export async function findProposal(ex: Executor, subId: string, proposalId: string): Promise<ProposalRow | undefined> {
  return ex
    .selectFrom('return_proposals')
    .select(PROPOSAL_COLUMNS)
    .where('sub_id', '=', subId)
    .where('proposal_id', '=', proposalId)
    .executeTakeFirst()
}

/** Decides an open proposal; false: it was decided already (by another clerk, at the same time). */
export async function decideProposal(
  ex: Executor,
  subId: string,
  proposalId: string,
  status: 'returned' | 'dismissed',
  by: string,
  at: Date,
): Promise<boolean> {
  const r = await ex
    .updateTable('return_proposals')
    .set({ status, decided_by: by, decided_at: at })
    .where('sub_id', '=', subId)
    .where('proposal_id', '=', proposalId)
    .where('status', '=', 'open')
    .executeTakeFirst()
  return r.numUpdatedRows > 0n
}

/** Hides an open proposal until `until`; false: it was decided already. */
export async function extendProposal(ex: Executor, subId: string, proposalId: string, until: Date): Promise<boolean> {
  const r = await ex
    .updateTable('return_proposals')
    .set({ shown_from: until })
    .where('sub_id', '=', subId)
    .where('proposal_id', '=', proposalId)
    .where('status', '=', 'open')
    .executeTakeFirst()
  return r.numUpdatedRows > 0n
}
