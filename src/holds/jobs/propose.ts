import type { PackagesService } from '../../packages/index.js'
import type { SitesService } from '../../sites/index.js'
import type { Db } from '../../platform/db/database.js'
import { inTransaction } from '../../platform/db/transaction.js'
import { tryJobLock } from '../../platform/jobs/lock.js'
import type { PeriodicTask } from '../../platform/jobs/scheduler.js'
import type { Clock } from '../../platform/kit/clock.js'
import type { IdGenerator } from '../../platform/kit/ids.js'
import { effectiveDeadline } from '../model/deadline.js'
import { waitClockStart, type HoldSpan } from '../model/hold.js'
import { holdsEndingAfter } from '../store/holds.js'
import { deadlinesOf, insertProposals, subscriptionsWithDeadlines } from '../store/returns.js'
import type { ProposalRow } from '../store/tables.js'

const DAY_MS = 86_400_000
const BATCH = 500

export interface ProposeDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  sites: Pick<SitesService, 'getInfos'>
  packages: Pick<PackagesService, 'waitingArrivedBefore'>
  everyMs?: number
}

/**
 * The return-proposal job (issue 30.2): every waiting parcel that has waited longer than its
 * site's return deadline (its own or its nearest ancestor's) is proposed for return, once. The
 * wait counts from the parcel's arrival (insertTimestamp), or from the end of a hold of its
 * recipient that ran past it (model/hold.ts waitClockStart): a parcel of a recipient on hold is
 * not proposed while the hold lasts. Durable and stateless like the reminder job: each run derives
 * what is due; a run across two workers proposes each parcel once (the advisory lock per batch,
 * the unique index on (sub_id, package_id) behind it).
 */
export function createProposalJob(deps: ProposeDeps) {
  const { db, clock, ids, sites, packages } = deps

  /** The proposals due in one batch of waiting parcels (read outside any transaction). */
  async function dueIn(
    subId: string,
    batch: Awaited<ReturnType<ProposeDeps['packages']['waitingArrivedBefore']>>,
    own: Map<string, number>,
    now: Date,
  ): Promise<ProposalRow[]> {
    const siteIds = [...new Set(batch.flatMap((p) => (p.siteId ? [p.siteId] : [])))]
    const infos = await sites.getInfos(subId, siteIds)
    const receivers = [...new Set(batch.flatMap((p) => (p.receiverId ? [p.receiverId] : [])))]
    const holds = new Map<string, HoldSpan[]>()
    for (const h of await holdsEndingAfter(db, subId, receivers, batch[0]!.createdAt)) {
      const list = holds.get(h.contact_id) ?? []
      list.push({ startsAt: new Date(h.starts_at), endsAt: new Date(h.ends_at) })
      holds.set(h.contact_id, list)
    }
    const due: ProposalRow[] = []
    for (const p of batch) {
      const site = p.siteId ? infos.get(p.siteId) : undefined
      const deadline = site && effectiveDeadline(site, own)
      if (!site || !deadline) continue
      const from = waitClockStart(p.createdAt, (p.receiverId && holds.get(p.receiverId)) || [], now)
      if (from.getTime() + deadline.days * DAY_MS > now.getTime()) continue
      due.push({
        proposal_id: ids('rtn_'),
        sub_id: subId,
        package_id: p.packageId,
        site_id: site.inboundSiteId,
        deadline_days: deadline.days,
        received_at: p.createdAt,
        proposed_at: now,
        status: 'open',
        shown_from: now,
        decided_by: null,
        decided_at: null,
      })
    }
    return due
  }

  /** One subscription: its waiting parcels older than its shortest deadline, by keyset. */
  async function proposeFor(subId: string): Promise<number> {
    const own = await deadlinesOf(db, subId)
    if (own.size === 0) return 0
    const now = clock.now()
    const before = new Date(now.getTime() - Math.min(...own.values()) * DAY_MS)
    let proposed = 0
    let after: { createdAt: Date; packageId: string } | undefined
    for (;;) {
      const batch = await packages.waitingArrivedBefore(subId, { before, after, limit: BATCH })
      if (batch.length === 0) return proposed
      const due = await dueIn(subId, batch, own, now)
      const n = await inTransaction(db, async (trx) =>
        (await tryJobLock(trx, 'holds:return-proposals')) ? insertProposals(trx, due) : -1,
      )
      // Another worker holds the lock: it is proposing the same parcels; this run leaves them to it.
      if (n < 0) return proposed
      proposed += n
      if (batch.length < BATCH) return proposed
      const last = batch[batch.length - 1]!
      after = { createdAt: last.createdAt, packageId: last.packageId }
    }
  }

  const run = async (): Promise<number> => {
    let proposed = 0
    for (const subId of await subscriptionsWithDeadlines(db)) proposed += await proposeFor(subId)
    return proposed
  }

  const task: PeriodicTask = { name: 'return proposals', everyMs: deps.everyMs ?? 15 * 60_000, run }
  return { run, task }
}
