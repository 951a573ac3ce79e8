import { Type } from '@sinclair/typebox'

/**
 * A site's holding fee (issue 30): after `freeDays` free days, `amountPerDay` per further day, in
 * integer minor units of `currency` (cents, pence: no rounding anywhere), at most `cap` in all when
 * given. Set on a site, inherited by the sites below it as signatureRule is; `amountPerDay: 0` set
 * on a site charges nothing there whatever its ancestors charge.
 */
export interface HoldingFeePolicy {
  freeDays: number
  amountPerDay: number
  currency: string
  cap?: number
}

/** What a parcel owes (or will owe) at a moment: the policy applied to its days at the site. */
export interface HoldingFee {
  amount: number
  currency: string
  /** Days held: every started 24 hours since it arrived at its site counts as one. */
  daysHeld: number
  /** The days beyond the free ones that are charged. */
  chargedDays: number
  /** When it arrived at the site it waits at (the fee counts from there). */
  since: string
  /** Until when it is held for free. */
  freeUntil: string
  /** The cap was reached: the amount is the cap. */
  capped: boolean
}

const DAY_MS = 86_400_000
const MAX_MINOR = 100_000_000

export const HOLDING_FEE_DESCRIPTION =
  'An extension to the vendor contract: the holding fee of parcels waiting here, charged at hand-over. After `freeDays` free days (every started 24 hours since the parcel reached this site counts as a day), `amountPerDay` per further day, in integer minor units of `currency` (ISO 4217, e.g. 250 EUR = 2.50 €), at most `cap` in all when given. Unset: the nearest ancestor’s; none at the top. `amountPerDay: 0` charges nothing here whatever the ancestors charge.'

export const HoldingFeeSchema = Type.Object(
  {
    freeDays: Type.Integer({ minimum: 0, maximum: 3650, description: 'Days held for free.' }),
    amountPerDay: Type.Integer({
      minimum: 0,
      maximum: MAX_MINOR,
      description: 'Per day after the free days, in minor units (cents).',
    }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, upper case (EUR, USD, GBP).' }),
    cap: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_MINOR, description: 'The most one parcel is charged, in minor units.' }),
    ),
  },
  { additionalProperties: false, description: HOLDING_FEE_DESCRIPTION },
)

export const HoldingFeeOutSchema = Type.Object(
  {
    amount: Type.Integer({ description: 'In minor units of currency.' }),
    currency: Type.String(),
    daysHeld: Type.Integer(),
    chargedDays: Type.Integer(),
    since: Type.String({ format: 'date-time' }),
    freeUntil: Type.String({ format: 'date-time' }),
    capped: Type.Boolean(),
  },
  {
    description:
      "An extension to the vendor contract: the holding fee of its site (the site's `holdingFee`, else its nearest ancestor's), counted from when the parcel reached that site until it was handed over (while it waits: until now). Absent where no fee applies.",
  },
)

/** The columns a site keeps its own fee in (migration 0077); a null per-day amount: inherited. */
export interface HoldingFeeColumns {
  holding_fee_free_days: number | null
  holding_fee_per_day: number | null
  holding_fee_currency: string | null
  holding_fee_cap: number | null
}
export const HOLDING_FEE_COLUMNS = [
  'holding_fee_free_days',
  'holding_fee_per_day',
  'holding_fee_currency',
  'holding_fee_cap',
] as const

/** The columns of a fee as given (null: inherit again). */
export function holdingFeeColumns(fee: HoldingFeePolicy | null | undefined): HoldingFeeColumns {
  return {
    holding_fee_free_days: fee?.freeDays ?? null,
    holding_fee_per_day: fee?.amountPerDay ?? null,
    holding_fee_currency: fee?.currency ?? null,
    holding_fee_cap: fee?.cap ?? null,
  }
}

/** A site's own fee, if it set one. */
export function ownHoldingFee(r: HoldingFeeColumns): HoldingFeePolicy | undefined {
  if (r.holding_fee_per_day === null || r.holding_fee_currency === null) return undefined
  return {
    freeDays: r.holding_fee_free_days ?? 0,
    amountPerDay: r.holding_fee_per_day,
    currency: r.holding_fee_currency,
    ...(r.holding_fee_cap !== null ? { cap: r.holding_fee_cap } : {}),
  }
}

/** Pure: the fee along a chain (the site first, then its ancestors nearest first): the first one set. */
export function inheritedHoldingFee(chain: readonly HoldingFeeColumns[]): HoldingFeePolicy | undefined {
  for (const r of chain) {
    const own = ownHoldingFee(r)
    if (own) return own
  }
  return undefined
}

/**
 * Pure: the fee of a parcel held from `since` until `until` under `policy`; undefined where nothing
 * is charged (no policy, or 0 per day). A clock that reads `until` before `since` holds it 0 days.
 */
export function holdingFeeFor(policy: HoldingFeePolicy | undefined, since: Date, until: Date): HoldingFee | undefined {
  if (!policy || policy.amountPerDay === 0) return undefined
  const daysHeld = Math.max(0, Math.ceil((until.getTime() - since.getTime()) / DAY_MS))
  const chargedDays = Math.max(0, daysHeld - policy.freeDays)
  const full = chargedDays * policy.amountPerDay
  const capped = policy.cap !== undefined && full > policy.cap
  return {
    amount: capped ? policy.cap! : full,
    currency: policy.currency,
    daysHeld,
    chargedDays,
    since: since.toISOString(),
    freeUntil: new Date(since.getTime() + policy.freeDays * DAY_MS).toISOString(),
    capped,
  }
}
