import type { Logger } from 'pino'
import { createClientsService, type ClientsService } from '../access/index.js'
import { DatabaseFailureLimiter, MemoryFailureLimiter, PasswordPool, type FailureLimiter } from '../access/index.js'
import { KeyStore } from '../access/index.js'
import { createTokensService, type TokensService } from '../access/index.js'
import { issuerAcceptor, issuerOf, type Config } from './config.js'
import type { DatabaseHandle, Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import { deriveKey } from '../platform/kit/crypto.js'
import { defaultIds, type IdGenerator } from '../platform/kit/ids.js'
import { processLog } from '../platform/kit/process-log.js'
import { localInvalidations, pgInvalidations, type Invalidations } from '../platform/cache/invalidations.js'
import { createWebhooks, type Webhooks } from '../webhooks/index.js'
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
import { createSessionsService, type SessionsService } from '../access/index.js'
import { createUsersService, type UsersService } from '../access/index.js'
import { createNotifications, type Notifications } from '../notifications/index.js'
import type { PackageView } from '../notifications/index.js'

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
}

/** Everything the HTTP app, the CLI and the worker share: built once, here, from explicit parts. */
export interface AppContext {
  config: Readonly<Config>
  db: Db
  database: DatabaseHandle
  clock: Clock
  ids: IdGenerator
  /** What the process logs outside requests (workers, jobs): JSON lines, redacted as the request log is. */
  log: Logger
  issuer: string
  keys: KeyStore
  clients: ClientsService
  tokens: TokensService
  tokenLimiter: FailureLimiter
  /** Every password hash of the process (sign-in, password changes and resets), bounded. */
  passwords: PasswordPool
  /** Cache invalidation across the deployment's processes; `listen()` where caches must follow other processes' writes. */
  invalidations: Invalidations
  secrets: {
    pepper: Buffer
    sealKey: Buffer
    webhookKey: Buffer
    trackingKey: Buffer
    idempotencyKey: Buffer
    unsubscribeKey: Buffer
    deviceKey: Buffer
  }
  webhooks: Webhooks
  /** Recipient emails: settings, the outbox and its worker (started where the webhook worker runs). */
  notifications: Notifications
  companions: Companions
  receiving: Receiving
  /** People: console users (admin, clerk) and their sign-in sessions. */
  users: UsersService
  sessions: SessionsService
  /** Which subscriptions the process serves now (shared/presence.ts): fed by the receiving interface's requests. */
  presence: Presence
}

/**
 * The composition root: every service of the process, built in dependency order (a service is built
 * after everything its factory takes). The route plugins are mounted from one list in app.ts.
 */
export function createContext(input: {
  config: Readonly<Config>
  database: DatabaseHandle
  masterSecret: string
  clock: Clock
  ids?: IdGenerator
  invalidations?: Invalidations
  log?: Logger
}): AppContext {
  const { config, database, clock, masterSecret } = input
  const db = database.db
  const ids = input.ids ?? defaultIds
  const log = input.log ?? processLog(config.logLevel)
  const cacheMs = config.referenceCacheSeconds * 1000
  const secrets = {
    pepper: deriveKey(masterSecret, 'client-secret-hash'),
    sealKey: deriveKey(masterSecret, 'signing-key-seal'),
    webhookKey: deriveKey(masterSecret, 'webhook-credential-seal'),
    // Keys the permutation of generated tracking numbers: each installation its own sequence of numbers.
    trackingKey: deriveKey(masterSecret, 'tracking-number-permutation'),
    // Seals the answers Idempotency-Key replays (they can hold a secret shown once).
    idempotencyKey: deriveKey(masterSecret, 'idempotency-response-seal'),
    // Signs the console's device cookies (access/model/device-cookie.ts).
    deviceKey: deriveKey(masterSecret, 'console-device-cookie'),
    // Signs the unsubscribe links of notification emails.
    unsubscribeKey: deriveKey(masterSecret, 'notification-unsubscribe-link'),
  }

  // Auth: signing keys, API clients, access tokens, the token endpoint's failure limiter.
  const issuer = issuerOf(config)
  const keys = new KeyStore({
    db,
    clock,
    sealKey: secrets.sealKey,
    rotationDays: config.signingKeyRotationDays,
    alg: config.tokenSigningAlg,
  })
  // PostgreSQL may have other processes: they hear of each change through LISTEN/NOTIFY.
  const invalidations =
    input.invalidations ??
    (config.database.kind === 'postgres' ? pgInvalidations({ url: config.database.url }) : localInvalidations())
  const clients = createClientsService({
    db,
    clock,
    pepper: secrets.pepper,
    cacheSeconds: config.clientStatusCacheSeconds,
    invalidations,
  })
  const tokens = createTokensService({ keys, clients, clock, issuer, acceptsIssuer: issuerAcceptor(config) })
  // Guesses through every process of the deployment count together (PGlite is one process).
  // A client's id is passed by the addresses it already succeeded from (issue 26.5): no one else's failures lock it out of them.
  const failurePolicy = {
    limit: config.tokenFailureLimit,
    windowSeconds: config.tokenFailureWindowSeconds,
    trustKnownPairs: true,
  }
  const tokenLimiter: FailureLimiter =
    database.engine === 'postgres'
      ? new DatabaseFailureLimiter(db, clock, failurePolicy)
      : new MemoryFailureLimiter(clock, failurePolicy)

  // Webhooks: configurations, the outbox and its worker. On PGlite every write is in this process and
  // nudges the worker, so an idle worker may sleep longer (each look costs the embedded engine's one
  // thread); PostgreSQL may have writers elsewhere.
  const webhooks = createWebhooks({
    db,
    clock,
    ids,
    config,
    sealKey: secrets.webhookKey,
    log,
    idlePollMs: database.engine === 'pglite' ? 2_000 : undefined,
  })

  // Companions. Locations check carrier ids against the catalogue, and the catalogue answers "carriers
  // at these locations": each reaches the other through a late-bound call, so neither imports the other.
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

  // Receiving: images, then packages (which read every companion and the sites), then their readers.
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
  const readers = { sites, contacts, carriers, customFields, locations, checkCustomFieldValues }
  // Notifications read package records through the packages service, built after them (a late-bound call).
  const notifications = createNotifications({
    db,
    clock,
    ids,
    config,
    unsubscribeKey: secrets.unsubscribeKey,
    log,
    records: async (subId, packageIds) => (await packages.recordsByIds(subId, packageIds)) as unknown as PackageView[],
    contacts,
    onEventsCommitted: () => webhooks.notify(),
    // As for webhooks: on PGlite every write is in this process and nudges the worker, so polls can be rarer.
    pollMs: database.engine === 'pglite' ? 1_000 : undefined,
  })
  const packages: PackagesService = createPackagesService({
    db,
    clock,
    ids,
    images,
    readers,
    newPickupCode: () => newPickupCode(),
    onEventsCommitted: () => {
      webhooks.notify()
      notifications.nudge()
    },
    observeEvents: (trx, events) => notifications.observeEvents(trx, events),
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
    codeLimiter:
      database.engine === 'postgres'
        ? new DatabaseFailureLimiter(db, clock, codePolicy)
        : new MemoryFailureLimiter(clock, codePolicy),
  })
  const search = createSearchService({ db, records: (subId, packageIds) => packages.recordsByIds(subId, packageIds) })
  const trackingNumbers = createTrackingNumbersService({ db, key: secrets.trackingKey })
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
  const scanImage = createScanImageService({
    scan,
    images,
    decode: config.imageDecode,
    share: config.limits.heavyShare,
    presence,
  })

  // People: console users live in a subscription and may be limited to a site of it; their sign-in
  // failures count in the token endpoint's limiter (one count of guesses per address, whatever the door).
  // Every password hash of the process, bounded (access/model/password-pool.ts).
  const passwords = new PasswordPool(config.passwordHashing)
  const users = createUsersService({
    db,
    clock,
    ids,
    passwords,
    existingSiteIds: async (subId, siteIds) =>
      new Set(
        [...(await sites.getInfos(subId, siteIds)).values()].filter((s) => !s.deleted).map((s) => s.inboundSiteId),
      ),
    ensureSubscription: (name) => clients.ensureSubscription(name),
  })
  const sessions = createSessionsService({
    db,
    clock,
    limiter: tokenLimiter,
    passwords,
    deviceKey: secrets.deviceKey,
    idleMinutes: config.consoleSessions.idleMinutes,
    maxHours: config.consoleSessions.maxHours,
  })

  return {
    config,
    db,
    database,
    clock,
    ids,
    log,
    issuer,
    keys,
    clients,
    tokens,
    tokenLimiter,
    passwords,
    invalidations,
    secrets,
    webhooks,
    notifications,
    companions: { contacts, customFields, locations, carriers, checkCustomFieldValues },
    receiving: { sites, images, packages, trackingNumbers, scan, search, pickups, scanImage },
    users,
    sessions,
    presence,
  }
}
