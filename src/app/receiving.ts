import { DatabaseFailureLimiter, MemoryFailureLimiter } from '../access/index.js'
import type { Config } from './config.js'
import type { DatabaseHandle } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import type { Invalidations } from '../platform/cache/invalidations.js'
import type { EventSignal } from '../events/index.js'
import { createBlobStore } from '../images/index.js'
import { createImagesService, type ImagesService } from '../images/index.js'
import { createPackagesService, type PackagesService } from '../packages/index.js'
import { newPickupCode } from '../pickups/index.js'
import { createPickupsService, type PickupsService } from '../pickups/index.js'
import { WindowQuota } from '../platform/fairness/quotas.js'
import { WindowCounter } from '../platform/fairness/window-counter.js'
import { heldPackagesFrom, siteRefsOf } from '../scan/index.js'
import { createScanImageService } from '../scan/index.js'
import { Presence } from '../platform/fairness/presence.js'
import { createScanService, type ScanService } from '../scan/index.js'
import { createSearchService, type SearchService } from '../search/index.js'
import { createSitesService, type SitesService } from '../sites/index.js'
import { createTrackingNumbersService, type TrackingNumbersService } from '../packages/index.js'
import { createCarriersService, type CarriersService } from '../carriers/index.js'
import { createContactsService, type ContactsService } from '../contacts/index.js'
import { checkCustomFieldValues } from '../customfields/index.js'
import { createCustomFieldsService, type CustomFieldsService } from '../customfields/index.js'
import { createLocationsService, type LocationsService } from '../locations/index.js'
import { createRecipientMatcher, type RecipientMatcher } from '../contacts/index.js'
import { createScanIssuesService, type ScanIssuesService } from '../scanissues/index.js'

// Part of the composition root (context.ts): the companions, then the receiving domains that read them.

/** The companion resources (CONTRACT §5): contacts, custom fields, locations, carriers. */
export interface Companions {
  contacts: ContactsService
  customFields: CustomFieldsService
  locations: LocationsService
  carriers: CarriersService
  /** Pure: merges and validates package custom field values against the definitions. */
  checkCustomFieldValues: typeof checkCustomFieldValues
}

/** The receiving domains: sites, images, packages and what reads them (search, scan, tracking numbers). */
export interface Receiving {
  sites: SitesService
  images: ImagesService
  packages: PackagesService
  trackingNumbers: TrackingNumbersService
  scan: ScanService
  search: SearchService
  pickups: PickupsService
  scanImage: ReturnType<typeof createScanImageService>
  /** Label photos: the directory match of a printed recipient, and the queue of those not chosen. */
  recipients: RecipientMatcher
  scanIssues: ScanIssuesService
}

interface Parts {
  config: Readonly<Config>
  database: DatabaseHandle
  clock: Clock
  ids: IdGenerator
  invalidations: Invalidations
}

/** The companions and the sites, in dependency order. */
export function createCompanions({ config, database, clock, ids, invalidations }: Parts) {
  const db = database.db
  const cacheMs = config.referenceCacheSeconds * 1000
  // Locations check carrier ids against the catalogue, and the catalogue answers "carriers at these
  // locations": each reaches the other through a late-bound call, so neither imports the other.
  const carriers: CarriersService = createCarriersService({
    db,
    clock,
    ids,
    cacheMs,
    invalidations,
    locations: {
      getByIds: (subId, locationIds) => locations.getByIds(subId, locationIds),
      forgetCarrier: (ex, subId, carrierId) => locations.forgetCarrier(ex, subId, carrierId),
    },
  })
  const locations: LocationsService = createLocationsService({ db, clock, ids, carriers })
  const customFields = createCustomFieldsService({ db, clock, ids, cacheMs, invalidations })
  const sites = createSitesService({
    db,
    clock,
    ids,
    cacheMs,
    invalidations,
    existingLocationIds: async (subId, locationIds) => new Set((await locations.getByIds(subId, locationIds)).keys()),
  })
  const contacts = createContactsService({ db, clock, ids, sites })
  const companions: Companions = { contacts, customFields, locations, carriers, checkCustomFieldValues }
  return { companions, sites }
}

/**
 * Images, then packages (which read every companion and the sites, and tell `events` of what they
 * commit), then their readers.
 */
export function createReceiving(
  parts: Parts & { companions: Companions; sites: SitesService; events: EventSignal; trackingKey: Buffer },
): { receiving: Receiving; presence: Presence } {
  const { config, database, clock, ids, companions, sites } = parts
  const db = database.db
  const { contacts } = companions
  const quota = config.limits.images
  const windows = new WindowCounter(db, clock)
  const images = createImagesService({
    db,
    clock,
    ids,
    blobs: createBlobStore({ config, db, engine: database.engine }),
    maxBytes: config.imageMaxBytes,
    quotas: {
      uploads: new WindowQuota(windows, 'image uploads', quota.uploadsPerHour, 3600),
      bytes: new WindowQuota(windows, 'bytes of image uploads', quota.bytesPerHour, 3600),
      tempHeld: quota.tempHeld,
    },
  })
  const packages: PackagesService = createPackagesService({
    db,
    clock,
    ids,
    images,
    readers: { ...companions, sites },
    newPickupCode: () => newPickupCode(),
    onEventsCommitted: () => parts.events.committed(),
  })
  // Wrong pickup codes, counted for every process like the token endpoint's failures (one per API
  // client, three times that per subscription; each further lock doubles, at most four windows).
  const codePolicy = {
    limit: config.pickupCodeFailureLimit,
    windowSeconds: config.pickupCodeFailureWindowSeconds,
    addressFactor: 1,
    clientFactor: 3,
    maxBackoffFactor: 4,
  }
  const pickups = createPickupsService({
    db,
    ids,
    packages,
    contacts,
    sites,
    codeLimiter:
      database.engine === 'postgres'
        ? new DatabaseFailureLimiter(db, clock, codePolicy)
        : new MemoryFailureLimiter(clock, codePolicy),
  })
  const search = createSearchService({ db, records: (subId, packageIds) => packages.recordsByIds(subId, packageIds) })
  const trackingNumbers = createTrackingNumbersService({ db, key: parts.trackingKey })
  const scan = createScanService({
    findPackages: heldPackagesFrom((subId, number, includeArchived) =>
      packages.findByTrackingNumber(subId, number, includeArchived),
    ),
    findContacts: (subId, name, company) => contacts.findMatches(subId, name, company),
    findCompanyContacts: (subId, company) => contacts.findCompanyMatches(subId, company),
    siteRefs: (subId, siteIds) => siteRefsOf(sites, subId, siteIds),
  })
  // Who is being served: the time shares of heavy work (heavy slots, decode threads) apply only when others are.
  const presence = new Presence(undefined, config.limits.presence)
  const recipients = createRecipientMatcher({ db, policy: config.recipientMatch })
  const scanImage = createScanImageService({
    scan,
    images,
    decode: config.imageDecode,
    share: config.limits.heavyShare,
    presence,
    matchRecipient: (subId, q) => recipients.matchRecipient(subId, q),
  })
  const scanIssues = createScanIssuesService({
    db,
    clock,
    ids,
    packages,
    sites,
    matchRecipient: (subId, q) => recipients.matchRecipient(subId, q),
    onEventsCommitted: () => parts.events.committed(),
  })
  return {
    receiving: { sites, images, packages, trackingNumbers, scan, search, pickups, scanImage, recipients, scanIssues },
    presence,
  }
}
