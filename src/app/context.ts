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
import { createEventSignal } from '../events/signal.js'
import type { Presence } from '../platform/fairness/presence.js'
import { createSessionsService, type SessionsService } from '../access/index.js'
import { createUsersService, type UsersService } from '../access/index.js'
import { createSsoService, type SsoService } from '../access/index.js'
import { createNotifications, type Notifications } from '../notifications/index.js'
import { createCompanions, createReceiving, type Companions, type Receiving } from './receiving.js'
import { createDirectory, type Directory } from '../directory/index.js'

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
    // Seals the single sign-on client secrets at rest, and the flow cookie of a sign-on in progress.
    ssoSecretKey: deriveKey(masterSecret, 'sso-client-secret-seal'),
    ssoFlowKey: deriveKey(masterSecret, 'console-sso-flow'),
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
    tokenKey: deriveKey(masterSecret, 'scim-token-hash'),
    sealKey: deriveKey(masterSecret, 'ldap-credential-seal'),
    log: (msg, extra) => log.error(extra, msg),
    onEventsCommitted: () => events.committed(),
  })
  companions.contacts.listenDepartures((subId, contactIds) => directory.departures.onDeparted(subId, contactIds))

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
  }
}
