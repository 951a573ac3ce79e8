// Owned by the companion-resources work (contacts, custom fields, locations, carriers): it fills
// this in. The lead's code only relies on the interface below.
import { createCarriersService, type CarriersService } from './carriers/carriers.service.js'
import { createContactsService, type ContactsService } from './contacts/contacts.service.js'
import { checkCustomFieldValues } from './customfields/custom-field-values.js'
import { createCustomFieldsService, type CustomFieldsService } from './customfields/customfields.service.js'
import type { Db } from './db/database.js'
import { createLocationsService, type LocationsService } from './locations/locations.service.js'
import type { Clock } from './shared/clock.js'
import type { IdGenerator } from './shared/ids.js'
import type { Invalidations } from './shared/invalidations.js'

/** What companions need from inbound sites (implemented by the sites domain, injected here). */
export interface SiteLookup {
  /** The ids among `ids` that are live (not deleted) sites of the subscription. */
  existingSiteIds(subId: string, ids: string[]): Promise<Set<string>>
}

export interface CompanionDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  sites: SiteLookup
  /** How long reference data is remembered per subscription (carriers, custom field definitions). */
  cacheMs?: number
  invalidations: Invalidations
}

/** The companion resources (CONTRACT §5), as the receiving domains and the routes use them. */
export interface Companions {
  contacts: ContactsService
  customFields: CustomFieldsService
  locations: LocationsService
  carriers: CarriersService
  /** Pure: merges and validates package custom field values against the definitions. */
  checkCustomFieldValues: typeof checkCustomFieldValues
}

export function createCompanions(deps: CompanionDeps): Companions {
  const { db, clock, ids } = deps
  // Locations check carrier ids against the catalogue, and the catalogue answers "carriers at these
  // locations": each reaches the other through a late-bound call, so neither imports the other.
  const carriers: CarriersService = createCarriersService({ db, clock, ids, cacheMs: deps.cacheMs, invalidations: deps.invalidations, locations: { getByIds: (subId, locationIds) => locations.getByIds(subId, locationIds) } })
  const locations: LocationsService = createLocationsService({ db, clock, ids, carriers })
  return {
    contacts: createContactsService({ db, clock, ids, sites: deps.sites }),
    customFields: createCustomFieldsService({ db, clock, ids, cacheMs: deps.cacheMs, invalidations: deps.invalidations }),
    locations,
    carriers,
    checkCustomFieldValues,
  }
}

/**
 * SiteLookup straight on `inbound_sites`. The sites service is built from the companions (it asks
 * locations whether a location exists), so companions cannot take it as a dependency without a
 * cycle; this one query is the whole of what contacts need.
 */
export function createSqlSiteLookup(db: Db): SiteLookup {
  return {
    async existingSiteIds(subId, siteIds) {
      const wanted = [...new Set(siteIds)]
      if (wanted.length === 0) return new Set()
      const rows = await db.selectFrom('inbound_sites').select('site_id')
        .where('sub_id', '=', subId).where('site_id', 'in', wanted).where('deleted_at', 'is', null).execute()
      return new Set(rows.map((r) => r.site_id))
    },
  }
}
