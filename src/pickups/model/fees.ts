import { Type, type Static } from '@sinclair/typebox'
import { holdingFeeFor, HoldingFeeOutSchema, type HandOverRule } from '../../sites/index.js'

/** One parcel of a hand-over: where it waited and since when (packages' site_arrived_at). */
export interface HeldParcel {
  packageId: string
  trackingNumber: string
  siteId: string | null
  arrivedAt: Date
}

export const PickupFeesSchema = Type.Object(
  {
    packages: Type.Array(
      Type.Object({ packageId: Type.String(), trackingNumber: Type.String(), ...HoldingFeeOutSchema.properties }),
    ),
    totals: Type.Array(
      Type.Object({ amount: Type.Integer({ description: 'In minor units.' }), currency: Type.String() }),
      { description: 'The sum per currency (parcels of sites charging in several currencies are not added up).' },
    ),
  },
  {
    description:
      'An extension to the vendor contract: the holding fees charged at this hand-over (the sites’ `holdingFee`), per parcel and in total; absent when none of its parcels owed one. The receipt of what the collector paid: fixed at the hand-over.',
  },
)
export type PickupFees = Static<typeof PickupFeesSchema>

/**
 * Pure: the fees of the parcels handed over at `at`, each by the fee of its site's chain (its own,
 * else its nearest ancestor's). Parcels that owe nothing are left out; undefined when none owes.
 */
export function pickupFees(
  parcels: readonly HeldParcel[],
  chains: ReadonlyMap<string, readonly HandOverRule[]>,
  at: Date,
): PickupFees | undefined {
  const packages = parcels.flatMap((p) => {
    const policy = p.siteId ? chains.get(p.siteId)?.find((s) => s.holdingFee)?.holdingFee : undefined
    const fee = holdingFeeFor(policy, p.arrivedAt, at)
    return fee && fee.amount > 0 ? [{ packageId: p.packageId, trackingNumber: p.trackingNumber, ...fee }] : []
  })
  if (packages.length === 0) return undefined
  const totals = new Map<string, number>()
  for (const p of packages) totals.set(p.currency, (totals.get(p.currency) ?? 0) + p.amount)
  return { packages, totals: [...totals].map(([currency, amount]) => ({ amount, currency })) }
}
