import type { SiteRow } from '../store/sites.js'

/** A site's own hand-over proof settings (migration 0039); null: as its parent says. */
export interface HandOverRule {
  siteId: string
  name: string
  signatureRule: 'required' | 'optional' | 'off' | null
  photoProofAllowed: boolean | null
}

type RuleRow = Pick<SiteRow, 'site_id' | 'name' | 'ancestor_ids' | 'signature_rule' | 'photo_proof_allowed'>

/**
 * Pure: each asked site's chain, itself first then its ancestors nearest first, from the rows of
 * those sites and their ancestors (a site not among the rows is left out of its chain).
 */
export function handOverChains(siteIds: readonly string[], rows: readonly RuleRow[]): Map<string, HandOverRule[]> {
  const byId = new Map(rows.map((r) => [r.site_id, r]))
  const out = new Map<string, HandOverRule[]>()
  for (const id of siteIds) {
    const own = byId.get(id)
    const chain = own ? [own.site_id, ...[...own.ancestor_ids].reverse()] : []
    out.set(
      id,
      chain
        .map((s) => byId.get(s))
        .filter((s) => s !== undefined)
        .map((s) => ({
          siteId: s.site_id,
          name: s.name,
          signatureRule: s.signature_rule,
          photoProofAllowed: s.photo_proof_allowed,
        })),
    )
  }
  return out
}
