import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

/**
 * The pickup of each package's latest hand-over (DELIVERED or PICKED_UP activity), for the packages
 * whose latest hand-over was a one-step pickup; read by the notifications' receipt, which asks the
 * pickups domain who collected (a name given at the desk, another contact).
 */
export async function handOverPickups(db: Executor, subId: string, packageIds: string[]): Promise<Map<string, string>> {
  if (packageIds.length === 0) return new Map()
  const { rows } = await sql<{ package_id: string; pickup_id: string | null }>`
    select distinct on (a.package_id) a.package_id, a.pickup_id
    from package_activities a
    where a.sub_id = ${subId} and a.package_id = any(${packageIds}::text[])
      and a.status in ('DELIVERED', 'PICKED_UP')
    order by a.package_id, a.sequence desc`.execute(db)
  return new Map(rows.flatMap((r) => (r.pickup_id ? [[r.package_id, r.pickup_id] as const] : [])))
}
