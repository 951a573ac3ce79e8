import type { Insertable } from 'kysely'
import { appendPackageEvents, type PackageRecord } from '../packages/index.js'
import type { Db } from '../platform/db/database.js'
import { inTransaction } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { insertAudit, listAudits } from './store/audits.js'
import { lockShelf } from './store/shelves.js'
import type { ShelfAuditTable } from './store/tables.js'

/**
 * Records an audit and, in the same transaction, a `MissingFromShelf` event for each parcel it
 * newly finds missing (an exception, issue 30.3): one not missing at the shelf's previous audit, or
 * changed since (filed again, moved back). A parcel missing at audit after audit untouched is told
 * once. Audits of one shelf are recorded one at a time (the shelf's row lock), so two clerks
 * auditing at once cannot both tell of one parcel.
 */
export async function recordAudit(
  deps: { db: Db; clock: Clock; ids: IdGenerator; onEventsCommitted?: () => void },
  row: Insertable<ShelfAuditTable> & { sub_id: string; site_id: string; audit_id: string },
  missing: string[],
  records: Map<string, PackageRecord>,
): Promise<void> {
  const told = await inTransaction(deps.db, async (trx) => {
    await lockShelf(trx, row.sub_id, row.site_id)
    const [previous] = await listAudits(trx, row.sub_id, { siteIds: [row.site_id], skip: 0, limit: 1 })
    const before = new Set(previous?.missing_ids ?? [])
    const since = previous ? new Date(previous.audited_at).getTime() : 0
    const fresh = missing.flatMap((id) => {
      const p = records.get(id)
      return p && (!before.has(id) || Date.parse(p.updateTimestamp) > since) ? [p] : []
    })
    await insertAudit(trx, row)
    await appendPackageEvents(
      trx,
      fresh.map((p) => ({
        eventId: deps.ids('evt_'),
        subId: row.sub_id,
        packageId: p.packageId,
        variant: 'tracking' as const,
        eventName: 'MissingFromShelf',
        occurredAt: deps.clock.now(),
        data: {
          packageId: p.packageId,
          trackingNumber: p.trackingNumber,
          currentStatus: p.currentStatus,
          previousStatus: p.currentStatus,
          currentLocation: p.currentLocation ?? null,
          audit: { auditId: row.audit_id, shelfId: row.site_id },
        },
      })),
    )
    return fresh.length
  })
  if (told > 0) deps.onEventsCommitted?.()
}
