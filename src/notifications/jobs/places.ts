import type { LocationsService } from '../../locations/index.js'
import type { SitesService } from '../../sites/index.js'
import { placeOf, type Place, type PlacePart } from '../model/place.js'

export interface PlaceReaders {
  sites: Pick<SitesService, 'getInfos' | 'openingHoursAt'>
  locations: Pick<LocationsService, 'getByIds'>
  /** NOTIFY_TIME_ZONE: the zone of a place with no location above it. */
  defaultTimeZone: string
}

/**
 * The places of these sites, read through the sites and locations domains: each site's chain root
 * first (its ancestors' names and types), and the time zone of the nearest location on the chain.
 * A site no longer found is left out (its email shows the record's own names).
 */
export function createPlaces(deps: PlaceReaders) {
  return async function placesOf(subId: string, siteIds: readonly string[]): Promise<Map<string, Place>> {
    const out = new Map<string, Place>()
    if (siteIds.length === 0) return out
    const leaves = await deps.sites.getInfos(subId, [...new Set(siteIds)])
    const ancestorIds = new Set([...leaves.values()].flatMap((s) => s.ancestorlist))
    const infos = new Map([...(await deps.sites.getInfos(subId, [...ancestorIds])), ...leaves])
    const chains = new Map(
      [...leaves].map(([id, leaf]) => [id, [...leaf.ancestorlist.map((a) => infos.get(a)), leaf]] as const),
    )
    const locationIds = new Set<string>()
    for (const chain of chains.values()) for (const s of chain) if (s?.locationId) locationIds.add(s.locationId)
    const zones = await deps.locations.getByIds(subId, [...locationIds], { includeDeleted: true })
    for (const [id, chain] of chains) {
      const names = chain[chain.length - 1]!.locationHierarchy.split('| ')
      // An ancestor not found (it cannot be, short of a race with a delete) keeps its name from the path.
      const parts: PlacePart[] = chain.map((s, i) =>
        s ? { name: s.name, type: s.type } : { name: names[i] ?? '', type: 'site' },
      )
      const nearest = [...chain].reverse().find((s) => s?.locationId && zones.has(s.locationId))
      const place = placeOf(parts, nearest ? zones.get(nearest.locationId!)!.timezone : deps.defaultTimeZone)
      const quiet = chain[chain.length - 1]!.quietHours
      out.set(id, quiet ? { ...place, quietHours: quiet } : place)
    }
    return out
  }
}
