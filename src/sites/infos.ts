import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import type { Invalidations } from '../platform/cache/invalidations.js'
import { SubscriptionCache } from '../platform/cache/subscription-cache.js'
import * as repo from './store/sites.js'
import { toSiteRef, type SiteInfo } from './model/view.js'
import { chainOf } from './model/site-chain.js'
import { inheritedHoldingFee, type HoldingFeePolicy } from './model/holding-fee.js'
import { inheritedQuietHours } from './model/quiet-hours.js'

const withHoldingFee = (fee: HoldingFeePolicy | undefined) => (fee ? { holdingFee: fee } : {})

/**
 * Sites as packages see them, by id, remembered per subscription for `cacheMs` (SubscriptionCache);
 * null remembers an id that is no site of the subscription. A write of the tree forgets it here
 * (`invalidate`) and, through `invalidations`, in the other processes.
 */
export function createSiteInfos(deps: { db: Db; clock: Clock; cacheMs: number; invalidations: Invalidations }) {
  const { db, clock } = deps
  const infos = new SubscriptionCache<Map<string, SiteInfo | null>>(clock, deps.cacheMs)
  deps.invalidations.on('sites', infos.drop)

  /** Sites by id for display (deleted ones included: history keeps pointing at them). */
  async function getInfos(subId: string, siteIds: string[]): Promise<Map<string, SiteInfo>> {
    const out = new Map<string, SiteInfo>()
    const known = infos.peek(subId)
    const missing: string[] = []
    for (const id of new Set(siteIds)) {
      const hit = known?.get(id)
      if (hit === undefined) missing.push(id)
      else if (hit !== null) out.set(id, hit)
    }
    if (missing.length === 0) return out
    const generation = infos.generation(subId)
    const at = clock.now().getTime()
    const rows = await repo.findSites(db, subId, missing)
    // The holding fee and quiet hours are inherited (model/): the ancestors not read yet are read once.
    const byId = new Map(rows.map((r) => [r.site_id, r]))
    const above = [...new Set(rows.flatMap((r) => r.ancestor_ids))].filter((id) => !byId.has(id))
    if (above.length) for (const r of await repo.findSites(db, subId, above)) byId.set(r.site_id, r)
    const loaded = new Map<string, SiteInfo | null>(missing.map((id) => [id, null]))
    for (const r of rows) {
      const quiet = inheritedQuietHours(chainOf(r.site_id, byId))
      loaded.set(
        r.site_id,
        Object.freeze({
          ...toSiteRef(r),
          locationId: r.location_id,
          status: r.status,
          deleted: r.deleted_at !== null,
          ...withHoldingFee(inheritedHoldingFee(chainOf(r.site_id, byId))),
          ...(quiet ? { quietHours: quiet } : {}),
        }),
      )
    }
    for (const [id, info] of loaded) if (info) out.set(id, info)
    // Added to the entry it was looked up beside (or a new one), so the entry's age stays that of its oldest read.
    if (known) for (const [id, info] of loaded) known.set(id, info)
    else infos.store(subId, loaded, generation, at)
    return out
  }

  return { getInfos, invalidate: (subId: string) => infos.invalidate(subId) }
}
