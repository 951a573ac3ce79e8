import { createClientsService, type ClientsService } from './auth/clients.service.js'
import { DatabaseFailureLimiter, MemoryFailureLimiter, type FailureLimiter } from './auth/failure-limiter.js'
import { KeyStore } from './auth/keys.js'
import { createTokensService, type TokensService } from './auth/tokens.service.js'
import { createCompanions, createSqlSiteLookup, type Companions } from './companions.js'
import { issuerAcceptor, issuerOf, type Config } from './config.js'
import type { DatabaseHandle, Db } from './db/database.js'
import { createReceiving, type Receiving } from './receiving.js'
import type { Clock } from './shared/clock.js'
import { deriveKey } from './shared/crypto.js'
import { defaultIds, type IdGenerator } from './shared/ids.js'
import { localInvalidations, pgInvalidations, type Invalidations } from './shared/invalidations.js'
import { createWebhooks, type Webhooks } from './webhooks/webhooks.module.js'

/** Everything the HTTP app, the CLI and the worker share: built once, here, from explicit parts. */
export interface AppContext {
  config: Readonly<Config>
  db: Db
  database: DatabaseHandle
  clock: Clock
  ids: IdGenerator
  issuer: string
  keys: KeyStore
  clients: ClientsService
  tokens: TokensService
  tokenLimiter: FailureLimiter
  /** Cache invalidation across the deployment's processes; `listen()` where caches must follow other processes' writes. */
  invalidations: Invalidations
  secrets: { pepper: Buffer; sealKey: Buffer; webhookKey: Buffer; trackingKey: Buffer; idempotencyKey: Buffer }
  webhooks: Webhooks
  companions: Companions
  receiving: Receiving
}

export function createContext(input: { config: Readonly<Config>; database: DatabaseHandle; masterSecret: string; clock: Clock; ids?: IdGenerator; invalidations?: Invalidations }): AppContext {
  const { config, database, clock, masterSecret } = input
  const db = database.db
  const secrets = {
    pepper: deriveKey(masterSecret, 'client-secret-hash'),
    sealKey: deriveKey(masterSecret, 'signing-key-seal'),
    webhookKey: deriveKey(masterSecret, 'webhook-credential-seal'),
    // Keys the permutation of generated tracking numbers: each installation its own sequence of numbers.
    trackingKey: deriveKey(masterSecret, 'tracking-number-permutation'),
    // Seals the answers Idempotency-Key replays (they can hold a secret shown once).
    idempotencyKey: deriveKey(masterSecret, 'idempotency-response-seal'),
  }
  const issuer = issuerOf(config)
  const keys = new KeyStore({ db, clock, sealKey: secrets.sealKey, rotationDays: config.signingKeyRotationDays, alg: config.tokenSigningAlg })
  // PostgreSQL may have other processes: they hear of each change through LISTEN/NOTIFY.
  const invalidations = input.invalidations ?? (config.database.kind === 'postgres' ? pgInvalidations({ url: config.database.url }) : localInvalidations())
  const clients = createClientsService({ db, clock, pepper: secrets.pepper, cacheSeconds: config.clientStatusCacheSeconds, invalidations })
  const tokens = createTokensService({ keys, clients, clock, issuer, acceptsIssuer: issuerAcceptor(config) })
  // Guesses through every process of the deployment count together (PGlite is one process).
  const failurePolicy = { limit: config.tokenFailureLimit, windowSeconds: config.tokenFailureWindowSeconds }
  const tokenLimiter: FailureLimiter = database.engine === 'postgres' ? new DatabaseFailureLimiter(db, clock, failurePolicy) : new MemoryFailureLimiter(clock, failurePolicy)
  const ids = input.ids ?? defaultIds
  // On PGlite every write is in this process and nudges the worker, so an idle worker may sleep
  // longer (each look costs the embedded engine's one thread); PostgreSQL may have writers elsewhere.
  const webhooks = createWebhooks({ db, clock, ids, config, sealKey: secrets.webhookKey, idlePollMs: database.engine === 'pglite' ? 2_000 : undefined })
  const companions = createCompanions({ db, clock, ids, sites: createSqlSiteLookup(db), cacheMs: config.referenceCacheSeconds * 1000, invalidations })
  const receiving = createReceiving({ db, clock, ids, config, companions, trackingKey: secrets.trackingKey, onEventsCommitted: () => webhooks.notify(), invalidations })
  return { config, db, database, clock, ids, issuer, keys, clients, tokens, tokenLimiter, invalidations, secrets, webhooks, companions, receiving }
}
