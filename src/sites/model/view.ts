import type { SiteRow } from '../store/sites.js'
import type { Site, SiteRef } from '../api/schemas.js'
import { ownHoldingFee, type HoldingFeePolicy } from './holding-fee.js'
import { ownQuietHours, type QuietHours } from './quiet-hours.js'

// A site row as the API shows it: the reference packages and contacts carry, and the full record.

const EMPTY_SITE = { inboundSiteId: 'EMPTY_SITE', name: 'EMPTY_SITE' }

/** A site as packages and contacts show it, with what the services need beside the SiteRef. */
export interface SiteInfo extends SiteRef {
  locationId: string | null
  status: 'active' | 'inactive'
  deleted: boolean
  /** The holding fee of parcels waiting here (its own, else its nearest ancestor's); absent: none. */
  holdingFee?: HoldingFeePolicy
  /** The quiet hours for texts about parcels here (its own, else its nearest ancestor's); absent: the facility's. */
  quietHours?: QuietHours
}

export function toSiteRef(
  r: Pick<SiteRow, 'site_id' | 'name' | 'type' | 'parent_id' | 'ancestor_ids' | 'path_names'>,
): SiteRef {
  return {
    inboundSiteId: r.site_id,
    name: r.name,
    type: r.type,
    parent: r.parent_id,
    locationHierarchy: r.path_names.join('| '),
    ancestorlist: r.ancestor_ids,
    topTier: r.ancestor_ids.length === 0 ? EMPTY_SITE : { inboundSiteId: r.ancestor_ids[0]!, name: r.path_names[0]! },
  }
}

export function toSite(r: SiteRow): Site {
  return {
    ...toSiteRef(r),
    locationId: r.location_id,
    status: r.status,
    primary: r.is_primary,
    ...(r.opening_hours ? { openingHours: r.opening_hours } : {}),
    ...(r.signature_rule ? { signatureRule: r.signature_rule } : {}),
    ...(r.photo_proof_allowed !== null ? { photoProofAllowed: r.photo_proof_allowed } : {}),
    ...(ownHoldingFee(r) ? { holdingFee: ownHoldingFee(r) } : {}),
    ...(ownQuietHours(r) ? { quietHours: ownQuietHours(r) } : {}),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  }
}
