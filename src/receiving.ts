import path from 'node:path'
import type { FastifyPluginAsync } from 'fastify'
import type { Companions } from './companions.js'
import type { Config } from './config.js'
import type { Db } from './db/database.js'
import { LocalDirBlobStore, type BlobStore } from './images/blob-store.js'
import { WindowQuota } from './ratelimit/quotas.js'
import { WindowCounter } from './ratelimit/window-counter.js'
import { imagesRoutes } from './images/images.routes.js'
import { createImagesService, type ImagesService } from './images/images.service.js'
import { packagesRoutes, trackingNumbersRoutes } from './packages/packages.routes.js'
import { createPackagesService, type PackagesService } from './packages/packages.service.js'
import { createTrackingNumbersService, type TrackingNumbersService } from './packages/tracking-number.service.js'
import type { Clock } from './shared/clock.js'
import type { IdGenerator } from './shared/ids.js'
import { heldPackagesFrom, siteRefsOf } from './scan/held-packages.js'
import { scanRoutes } from './scan/scan.routes.js'
import { createScanImageService } from './scan/scan-image.service.js'
import { createScanService, type ScanService } from './scan/scan.service.js'
import { searchRoutes } from './search/search.routes.js'
import { createSearchService, type SearchService } from './search/search.service.js'
import { sitesRoutes } from './sites/sites.routes.js'
import { createSitesService, type SitesService } from './sites/sites.service.js'

/** The receiving domains (sites, images, packages, tracking numbers), wired to the companions they read. */
export interface Receiving {
  sites: SitesService
  images: ImagesService
  packages: PackagesService
  trackingNumbers: TrackingNumbersService
  scan: ScanService
  search: SearchService
  scanImage: ReturnType<typeof createScanImageService>
}

export function createReceiving(deps: { db: Db; clock: Clock; ids: IdGenerator; config: Readonly<Config>; companions: Companions; trackingKey: Buffer; blobs?: BlobStore; onEventsCommitted?: () => void }): Receiving {
  const { db, clock, ids, companions } = deps
  const sites = createSitesService({ db, clock, ids, cacheMs: deps.config.referenceCacheSeconds * 1000, existingLocationIds: async (subId, locationIds) => new Set((await companions.locations.getByIds(subId, locationIds)).keys()) })
  const quota = deps.config.limits.images
  const windows = new WindowCounter(db, clock)
  const images = createImagesService({
    db, clock, ids, blobs: deps.blobs ?? new LocalDirBlobStore(path.join(deps.config.dataDir, 'images')), maxBytes: deps.config.imageMaxBytes,
    quotas: { uploads: new WindowQuota(windows, 'image uploads', quota.uploadsPerHour, 3600), bytes: new WindowQuota(windows, 'bytes of image uploads', quota.bytesPerHour, 3600), tempHeld: quota.tempHeld },
  })
  const readers = {
    sites,
    contacts: companions.contacts,
    carriers: companions.carriers,
    customFields: companions.customFields,
    locations: companions.locations,
    checkCustomFieldValues: companions.checkCustomFieldValues,
  }
  const packages = createPackagesService({ db, clock, ids, images, readers, onEventsCommitted: deps.onEventsCommitted })
  const scan = createScanService({
    findPackages: heldPackagesFrom((subId, number, includeArchived) => packages.findByTrackingNumber(subId, number, includeArchived)),
    findContacts: (subId, name, company) => companions.contacts.findMatches(subId, name, company),
    findCompanyContacts: (subId, company) => companions.contacts.findCompanyMatches(subId, company),
    siteRefs: (subId, siteIds) => siteRefsOf(sites, subId, siteIds),
  })
  return { sites, images, packages, scan, search: createSearchService({ db, records: (subId, packageIds) => packages.recordsByIds(subId, packageIds) }), scanImage: createScanImageService({ scan, images, decode: deps.config.imageDecode }), trackingNumbers: createTrackingNumbersService({ db, key: deps.trackingKey }) }
}

export const receivingRoutes: FastifyPluginAsync<{ receiving: Receiving; imageMaxBytes: number }> = async (app, opts) => {
  await app.register(sitesRoutes, { sites: opts.receiving.sites })
  await app.register(imagesRoutes, { images: opts.receiving.images, maxBytes: opts.imageMaxBytes })
  await app.register(packagesRoutes, { packages: opts.receiving.packages })
  await app.register(searchRoutes, { search: opts.receiving.search })
  await app.register(trackingNumbersRoutes, { trackingNumbers: opts.receiving.trackingNumbers })
  await app.register(scanRoutes, { scan: opts.receiving.scan, scanImage: opts.receiving.scanImage, maxBytes: opts.imageMaxBytes })
}
