import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import { WAITING_EXCLUDED } from './columns.js'
import { isOneOf, NOT_WAITING, PACKAGE_STATUSES } from '../model/statuses.js'

/**
 * The ids of the packages waiting at exactly this site (a shelf's audit: what should be on it),
 * oldest first, at most `limit`. Served by packages_site_status_idx (sub_id, site_id, status, …).
 */
export async function waitingAtSite(ex: Executor, subId: string, siteId: string, limit: number): Promise<string[]> {
  const rows = await ex
    .selectFrom('packages')
    .select('package_id')
    .where('sub_id', '=', subId)
    .where('site_id', '=', siteId)
    .where('archived', '=', false)
    .where(sql<boolean>`current_status not in (${sql.join(WAITING_EXCLUDED)})`)
    .orderBy('created_at')
    .orderBy('package_id')
    .limit(limit)
    .execute()
  return rows.map((r) => r.package_id)
}

export interface OldestWaiting {
  packageId: string
  trackingNumber: string
  siteId: string | null
  status: string
  createdAt: Date
}

/**
 * The `limit` packages waiting longest (not archived, in a waiting status), of the subscription or
 * at the sites `siteIds`: per waiting status (and site), the oldest `limit` read off
 * packages_status_created_idx (packages_site_status_idx with sites) backwards, then the oldest of
 * those. Each branch reads at most `limit` index entries, however many packages there are.
 */
export async function oldestWaiting(
  ex: Executor,
  subId: string,
  q: { siteIds?: string[]; limit: number },
): Promise<OldestWaiting[]> {
  const statuses = PACKAGE_STATUSES.filter((s) => !isOneOf(NOT_WAITING, s))
  if (q.siteIds?.length === 0) return []
  const atSite = q.siteIds ? sql`and p.site_id = s.site_id` : sql``
  const sites = q.siteIds ? sql`cross join unnest(${q.siteIds}::text[]) s(site_id)` : sql``
  const { rows } = await sql<{
    package_id: string
    tracking_number: string
    site_id: string | null
    current_status: string
    created_at: Date | string
  }>`
    select o.package_id, o.tracking_number, o.site_id, o.current_status, o.created_at
      from unnest(${statuses}::text[]) st(status) ${sites}
     cross join lateral (
       select p.package_id, p.tracking_number, p.site_id, p.current_status, p.created_at
         from packages p
        where p.sub_id = ${subId} and p.current_status = st.status ${atSite} and not p.archived
        order by p.created_at, p.package_id
        limit ${q.limit}
     ) o
     order by o.created_at, o.package_id
     limit ${q.limit}`.execute(ex)
  return rows.map((r) => ({
    packageId: r.package_id,
    trackingNumber: r.tracking_number,
    siteId: r.site_id,
    status: r.current_status,
    createdAt: new Date(r.created_at),
  }))
}

/**
 * Waiting packages (any site) that arrived before `before`, oldest first, after the keyset `after`,
 * at most `limit`, with their receiver (return proposals, holds/jobs/propose.ts).
 */
export async function waitingArrivedBefore(
  ex: Executor,
  subId: string,
  q: { before: Date; after?: { createdAt: Date; packageId: string }; limit: number },
): Promise<Array<OldestWaiting & { receiverId: string | null }>> {
  const rows = await ex
    .selectFrom('packages')
    .select(['package_id', 'tracking_number', 'site_id', 'current_status', 'created_at', 'receiver_id'])
    .where('sub_id', '=', subId)
    .where('archived', '=', false)
    .where(sql<boolean>`current_status not in (${sql.join(WAITING_EXCLUDED)})`)
    .where('created_at', '<', q.before)
    .$if(q.after !== undefined, (b) =>
      b.where(sql<boolean>`(created_at, package_id) > (${q.after!.createdAt}::timestamptz, ${q.after!.packageId})`),
    )
    .orderBy('created_at')
    .orderBy('package_id')
    .limit(q.limit)
    .execute()
  return rows.map((r) => ({
    packageId: r.package_id,
    trackingNumber: r.tracking_number,
    siteId: r.site_id,
    status: r.current_status,
    createdAt: new Date(r.created_at),
    receiverId: r.receiver_id,
  }))
}
