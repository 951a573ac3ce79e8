import type { Executor } from '../../platform/db/transaction.js'
import './tables.js'

/** Who collected at a one-step pickup (issue 17.4): a name given at the desk, or another contact. */
export interface Collector {
  pickupId: string
  name: string
  /** The contact who collected; absent for someone named at the desk who is not a contact. */
  contactId?: string
}

/**
 * The collector each pickup records. A package's own givenTo stays its
 * receiver when the collector is no contact, so a receipt must read the pickup.
 */
export async function collectorsOf(db: Executor, subId: string, pickupIds: string[]): Promise<Map<string, Collector>> {
  if (pickupIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('pickups')
    .select(['pickup_id', 'given_to_name', 'given_to_contact_id'])
    .where('sub_id', '=', subId)
    .where('pickup_id', 'in', pickupIds)
    .execute()
  return new Map(
    rows.map((r) => [
      r.pickup_id,
      {
        pickupId: r.pickup_id,
        name: r.given_to_name,
        ...(r.given_to_contact_id ? { contactId: r.given_to_contact_id } : {}),
      },
    ]),
  )
}
