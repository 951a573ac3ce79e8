import type { SiteRow } from '../store/sites.js'
import { chainOf } from './site-chain.js'
import { ownHoldingFee, type HoldingFeeColumns, type HoldingFeePolicy } from './holding-fee.js'

/** A site's own hand-over proof settings (migration 0039); null: as its parent says. */
export interface HandOverRule {
  siteId: string
  name: string
  signatureRule: 'required' | 'optional' | 'off' | null
  photoProofAllowed: boolean | null
  /** Migration 0077: its own holding fee; undefined: as its parent says. */
  holdingFee?: HoldingFeePolicy
}

type RuleRow = Pick<SiteRow, 'site_id' | 'name' | 'ancestor_ids' | 'signature_rule' | 'photo_proof_allowed'> &
  HoldingFeeColumns

/** Pure: each asked site's rule chain, itself first then its ancestors nearest first (chainOf). */
export function handOverChains(siteIds: readonly string[], rows: readonly RuleRow[]): Map<string, HandOverRule[]> {
  const byId = new Map(rows.map((r) => [r.site_id, r]))
  return new Map(
    siteIds.map((id) => [
      id,
      chainOf(id, byId).map((s) => ({
        siteId: s.site_id,
        name: s.name,
        signatureRule: s.signature_rule,
        photoProofAllowed: s.photo_proof_allowed,
        ...(ownHoldingFee(s) ? { holdingFee: ownHoldingFee(s) } : {}),
      })),
    ]),
  )
}
