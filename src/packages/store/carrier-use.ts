import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

/** Whether any package of the subscription names the carrier (packages_carrier_idx): the carriers domain deletes none in use. */
export async function carrierInUse(db: Executor, subId: string, carrierId: string): Promise<boolean> {
  const row = await db
    .selectFrom('packages')
    .select(sql<number>`1`.as('one'))
    .where('sub_id', '=', subId)
    .where('carrier_id', '=', carrierId)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}
