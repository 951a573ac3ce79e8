import type { Logger } from 'pino'
import { createClientsService, type ClientsService } from '../access/index.js'
import { DatabaseFailureLimiter, MemoryFailureLimiter, PasswordPool, type FailureLimiter } from '../access/index.js'
import { KeyStore } from '../access/index.js'
import { createTokensService, type TokensService } from '../access/index.js'
import { issuerAcceptor, issuerOf, type Config } from './config.js'
import type { DatabaseHandle, Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import { deriveSecrets } from './secrets.js'
import { defaultIds, type IdGenerator } from '../platform/kit/ids.js'
import { processLog } from '../platform/kit/process-log.js'
import { localInvalidations, pgInvalidations, type Invalidations } from '../platform/cache/invalidations.js'
import { createWebhooks, type Webhooks } from '../webhooks/index.js'
import { createEventSignal } from '../events/index.js'
import type { Presence } from '../platform/fairness/presence.js'
import { createSessionsService, type SessionsService } from '../access/index.js'
import { createUsersService, type UsersService } from '../access/index.js'
import { createSsoService, type SsoService } from '../access/index.js'
import { createNotifications, type Notifications } from '../notifications/index.js'
import { createCompanions, createReceiving, type Companions, type Receiving } from './receiving.js'
import { createDirectory, type Directory } from '../directory/index.js'
import {
  createShelfAuditsService,
  createShelvesService,
  type ShelfAuditsService,
  type ShelvesService,
} from '../shelves/index.js'
import { composeReports, type ReportsService, type SummaryJob, type SummaryService } from './reports.js'
import { composeExceptions, type ExceptionsService } from './exceptions.js'
import { createHolds, type Holds } from '../holds/index.js'

export type { Companions, Receiving } from './receiving.js'

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
    smsSecretKey: Buffer
    deviceKey: Buffer
    ssoSecretKey: Buffer
    ssoFlowKey: Buffer
  }
  webhooks: Webhooks
  /** Recipient emails: settings, the outbox and its worker (started where the webhook worker runs). */
  notifications: Notifications
  companions: Companions
  receiving: Receiving
  /** People: console users (admin, clerk) and their sign-in sessions. */
  users: UsersService
  sessions: SessionsService
  /** Staff single sign-on with each subscription's OpenID Connect provider. */
  sso: SsoService
  /** Which subscriptions the process serves now (shared/presence.ts): fed by the receiving interface's requests. */
  presence: Presence
  /** Recipients from identity providers and directories (SCIM, LDAP), and their departures. */
  directory: Directory
  /** Shelves with label codes: filing parcels by scan, audits (issue 30.1). */
  shelves: ShelvesService
  /** Past shelf audits read back. */
  shelfAudits: ShelfAuditsService
  /** What a manager reads: arrivals, hand-overs, dwell, clerks per day or week (issue 30.4). */
  reports: ReportsService
  /** Who gets the daily summary email, and its job (for the scheduler where workers run). */
  reportSummary: SummaryService
  reportSummaryJob: SummaryJob
  /** Every parcel that needs something done, asked of each kind's owner (issue 30.3). */
  exceptions: ExceptionsService
  /** Recipient holds, forwards, returns to sender proposed after a site's deadline (issue 30.2). */
  holds: Holds
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
  const secrets = deriveSecrets(masterSecret)

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

  // The outbox's consumers of this process look at once when a producer here commits events
  // (events/signal.ts); producers know no consumer.
  const events = createEventSignal()
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
  events.listen(() => webhooks.notify())

  const parts = { config, database, clock, ids, invalidations }
  const { companions, sites } = createCompanions(parts)
  const { receiving, presence } = createReceiving({
    ...parts,
    companions,
    sites,
    events,
    trackingKey: secrets.trackingKey,
  })
  // Notifications consume the outbox (their own cursor) and read packages through the packages service.
  const notifications = createNotifications({
    db,
    clock,
    ids,
    config,
    unsubscribeKey: secrets.unsubscribeKey,
    smsSecretKey: secrets.smsSecretKey,
    log,
    packages: receiving.packages,
    contacts: companions.contacts,
    sites,
    locations: companions.locations,
    onEventsCommitted: () => events.committed(),
    // As for webhooks: on PGlite every write is in this process and nudges the worker, so polls can be rarer.
    pollMs: database.engine === 'pglite' ? 1_000 : undefined,
  })
  events.listen(() => notifications.nudge())

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
  const sso = createSsoService({
    db,
    clock,
    ids,
    log,
    sessions,
    passwords,
    secretKey: secrets.ssoSecretKey,
    flowKey: secrets.ssoFlowKey,
    publicUrl: config.publicUrl,
    allowHttp: config.sso.allowHttp,
    allowCidrs: config.sso.allowCidrs,
  })

  // The directory provisions contacts and flags the waiting parcels of recipients who leave.
  const directory = createDirectory({
    db,
    clock,
    ids,
    contacts: companions.contacts,
    packages: receiving.packages,
    tokenKey: secrets.scimTokenKey,
    sealKey: secrets.ldapSealKey,
    log: (msg, extra) => log.error(extra, msg),
    onEventsCommitted: () => events.committed(),
  })
  companions.contacts.listenDepartures((subId, contactIds) => directory.departures.onDeparted(subId, contactIds))

  // Shelves file parcels through the packages domain's moves, so each filing is a history entry.
  const onEventsCommitted = () => events.committed()
  const shelves = createShelvesService({ db, clock, ids, sites, packages: receiving.packages, onEventsCommitted })
  const shelfAudits = createShelfAuditsService({ db, sites, packages: receiving.packages })
  // Reports read their own tallies (migration 0072) and name sites and carriers through their services.
  const { reports, reportSummary, reportSummaryJob } = composeReports({
    db,
    clock,
    config,
    sites,
    carriers: companions.carriers,
    packages: receiving.packages,
    users,
    log,
  })

  // Holds, forwards and returns change packages through the packages domain's update (history, events).
  const holds = createHolds({ db, clock, ids, contacts: companions.contacts, sites, packages: receiving.packages })
  const exceptions = composeExceptions({
    db,
    clock,
    packages: receiving.packages,
    departures: directory.departures,
    returns: holds.returns,
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
    companions,
    receiving,
    users,
    sessions,
    sso,
    presence,
    directory,
    shelves,
    shelfAudits,
    reports,
    reportSummary,
    reportSummaryJob,
    exceptions,
    holds,
  }
}
