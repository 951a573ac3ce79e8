import type { Executor } from '../../platform/db/transaction.js'
import type { SiteProof } from '../model/proof.js'

/**
 * Each package's site and that site's ancestors, nearest first, with the hand-over proof each one
 * sets (migration 0039; null: as its parent says). Read here, beside the pickup it decides, like
 * sitesOfPickups: two queries for the whole hand-over rather than one per package.
 */
export async function proofChains(
  db: Executor,
  subId: string,
  packageIds: string[],
): Promise<Map<string, SiteProof[]>> {
  const out = new Map<string, SiteProof[]>()
  if (packageIds.length === 0) return out
  const own = await db
    .selectFrom('packages as p')
    .leftJoin('inbound_sites as s', (j) => j.onRef('s.site_id', '=', 'p.site_id').onRef('s.sub_id', '=', 'p.sub_id'))
    .select(['p.package_id', 's.site_id', 's.ancestor_ids'])
    .where('p.sub_id', '=', subId)
    .where('p.package_id', 'in', packageIds)
    .execute()
  const wanted = new Set<string>()
  for (const r of own) if (r.site_id) [r.site_id, ...(r.ancestor_ids ?? [])].forEach((id) => wanted.add(id))
  const sites =
    wanted.size === 0
      ? []
      : await db
          .selectFrom('inbound_sites')
          .select(['site_id', 'name', 'signature_rule', 'photo_proof_allowed'])
          .where('sub_id', '=', subId)
          .where('site_id', 'in', [...wanted])
          .execute()
  const byId = new Map(sites.map((s) => [s.site_id, s]))
  for (const r of own) {
    const chain = r.site_id ? [r.site_id, ...[...(r.ancestor_ids ?? [])].reverse()] : []
    out.set(
      r.package_id,
      chain
        .map((id) => byId.get(id))
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
