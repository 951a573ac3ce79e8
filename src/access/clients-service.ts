import type { Db } from '../platform/db/database.js'
import { inTransaction, type Trx } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import type { Invalidations } from '../platform/cache/invalidations.js'
import { constantTimeEqualHex, hmacHex, randomToken } from '../platform/kit/crypto.js'
import { AppError, invalid } from '../platform/kit/errors.js'
import { newId } from '../platform/kit/ids.js'
import { CLIENT_ERRORS } from './model/client-errors.js'
import * as repo from './store/clients.js'
import type { ApiClientView, CreatedApiClient, UpdateApiClient } from './api/client-schemas.js'

export interface CreatedClient {
  clientId: string
  clientSecret: string
  subId: string
}

export interface ClientIdentity {
  clientId: string
  subId: string
  status: 'active' | 'disabled'
  /** The version of the secret it authenticated with; its tokens carry it (absent: 0). */
  secretVersion?: number
}

export interface ClientsServiceDeps {
  db: Db
  clock: Clock
  /** Key for the keyed hash of client secrets (derived from the master secret). */
  pepper: Buffer
  /**
   * How long a client's status may be served from memory. A change through any process of the
   * deployment drops it everywhere when announced (`invalidations`); this bounds the rest.
   */
  cacheSeconds: number
  invalidations: Invalidations
}

// Compared against when the client id is unknown, so that timing does not reveal which ids exist.
const DUMMY_HASH = '0'.repeat(64)

const viewOf = (row: repo.PublicClientRow): ApiClientView => ({
  clientId: row.client_id,
  name: row.name,
  status: row.status,
  createdAt: row.created_at.toISOString(),
})

/** Tokens of a client are honoured while it is active and they were issued for its current secret. */
const honoured = (row: repo.ClientRow | undefined, secretVersion: number) =>
  row?.status === 'active' && secretVersion >= row.secret_version

export type ClientsService = ReturnType<typeof createClientsService>

export function createClientsService(deps: ClientsServiceDeps) {
  const { db, clock, pepper } = deps
  const cache = new Map<string, { row: repo.ClientRow | undefined; at: number }>()
  // Bumped by every drop: a read that started before a drop is not cached (it may hold the old status).
  let drops = 0
  deps.invalidations.on('client', (clientId) => {
    drops++
    if (clientId === undefined) cache.clear()
    else cache.delete(clientId)
  })

  async function lookup(clientId: string): Promise<repo.ClientRow | undefined> {
    // No id holds a NUL (PostgreSQL text cannot), so such an id is unknown, not a database error.
    if (clientId.includes('\u0000')) return undefined
    const now = clock.now().getTime()
    const hit = cache.get(clientId)
    if (hit && now - hit.at < deps.cacheSeconds * 1000) return hit.row
    const before = drops
    const row = await repo.findClient(db, clientId)
    if (drops !== before) return row
    if (cache.size > 50_000) cache.clear()
    cache.set(clientId, { row, at: now })
    return row
  }

  /** A change to a client in one transaction; this process forgets the cached row whatever happened. */
  async function changing<T>(clientId: string, change: (trx: Trx) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(db, change)
    } finally {
      drops++
      cache.delete(clientId)
    }
  }

  async function ensureSubscription(name: string): Promise<string> {
    await repo.insertSubscription(db, { sub_id: newId('sub_'), name })
    const sub = await repo.findSubscriptionByName(db, name)
    if (!sub) throw new Error(`subscription ${name} vanished`)
    return sub.sub_id
  }

  return {
    /** Creates a client (and its subscription when new). The secret is returned once and only hashed at rest. */
    async createClient(input: {
      subscription: string
      name?: string
      clientId?: string
      clientSecret?: string
    }): Promise<CreatedClient> {
      const subId = await ensureSubscription(input.subscription)
      const clientId = input.clientId ?? newId('mrc_')
      const clientSecret = input.clientSecret ?? randomToken(32)
      await repo.insertClient(db, {
        client_id: clientId,
        sub_id: subId,
        name: input.name ?? input.subscription,
        secret_hash: hmacHex(pepper, clientSecret),
      })
      return { clientId, clientSecret, subId }
    },

    /** Makes sure the configured bootstrap client exists with exactly that secret. */
    async ensureClient(input: {
      subscription: string
      clientId: string
      clientSecret: string
    }): Promise<{ created: boolean; subId: string }> {
      return inTransaction(db, async (trx) => {
        const existing = await repo.findClient(trx, input.clientId)
        if (existing) {
          if (!constantTimeEqualHex(existing.secret_hash, hmacHex(pepper, input.clientSecret))) {
            throw new Error(
              `client ${input.clientId} exists with another secret; MAILROOM_BOOTSTRAP_CLIENT does not overwrite secrets`,
            )
          }
          return { created: false, subId: existing.sub_id }
        }
        await repo.insertSubscription(trx, { sub_id: newId('sub_'), name: input.subscription })
        const sub = await repo.findSubscriptionByName(trx, input.subscription)
        if (!sub) throw new Error('subscription vanished')
        await repo.insertClient(trx, {
          client_id: input.clientId,
          sub_id: sub.sub_id,
          name: 'bootstrap',
          secret_hash: hmacHex(pepper, input.clientSecret),
        })
        return { created: true, subId: sub.sub_id }
      })
    },

    /**
     * The client when id and secret match and it is active; undefined otherwise (same cost either
     * way). Through the status cache, like token verification: a client disabled by another process
     * may still get a token until this process hears of it (within a second on PostgreSQL, at most
     * CLIENT_STATUS_CACHE_SECONDS), and that token is refused from then on; one database read per
     * token request would halve issuance on PGlite.
     */
    async authenticate(clientId: string, clientSecret: string): Promise<ClientIdentity | undefined> {
      const row = await lookup(clientId)
      const matches = constantTimeEqualHex(row?.secret_hash ?? DUMMY_HASH, hmacHex(pepper, clientSecret))
      if (!row || !matches || row.status !== 'active') return undefined
      return { clientId: row.client_id, subId: row.sub_id, status: row.status, secretVersion: row.secret_version }
    },

    /** From the cache when still fresh: whether a token of this secret version is honoured; undefined when the database must be asked. */
    peekActive(clientId: string, secretVersion: number, nowMs = clock.now().getTime()): boolean | undefined {
      const hit = cache.get(clientId)
      if (!hit || nowMs - hit.at >= deps.cacheSeconds * 1000) return undefined
      return honoured(hit.row, secretVersion)
    },

    /** Whether tokens of this client and secret version are still honoured (cached for at most `cacheSeconds`). */
    async isActive(clientId: string, secretVersion: number): Promise<boolean> {
      return honoured(await lookup(clientId), secretVersion)
    },

    /** Every process of the deployment honours the change as soon as it hears of it (PostgreSQL: well within a second). */
    async setStatus(clientId: string, status: 'active' | 'disabled'): Promise<boolean> {
      return changing(clientId, async (trx) => {
        const found = await repo.setClientStatus(trx, clientId, status, clock.now())
        if (found) await deps.invalidations.announce(trx, 'client', clientId)
        return found
      })
    },

    /** The clients of a subscription (the clients API): never a secret or its hash. */
    listClientsOf: async (subId: string): Promise<ApiClientView[]> => (await repo.listClientsOf(db, subId)).map(viewOf),

    /** A new client in the caller's subscription; the secret is in this answer only. */
    async createClientIn(subId: string, name: string): Promise<CreatedApiClient> {
      const clientId = newId('mrc_')
      const clientSecret = randomToken(32)
      await repo.insertClient(db, {
        client_id: clientId,
        sub_id: subId,
        name: name.trim(),
        secret_hash: hmacHex(pepper, clientSecret),
      })
      const row = await repo.findClientOf(db, subId, clientId)
      if (!row) throw new Error(`client ${clientId} vanished`)
      return { ...viewOf(row), clientSecret }
    },

    /**
     * Renames, disables or re-enables a client of the subscription (another subscription's is not
     * found). A status change goes the way of setStatus: announced to every process. `callerClientId`
     * is the client whose token makes the request: it may not disable itself, or an integrator's
     * script would lock itself out with no way back but an admin.
     */
    async updateClientOf(
      subId: string,
      clientId: string,
      input: UpdateApiClient,
      callerClientId: string | undefined,
    ): Promise<ApiClientView> {
      if (input.status === 'disabled' && callerClientId === clientId)
        throw invalid('status', 'A client may not disable itself: use another client or the console.')
      return changing(clientId, async (trx) => {
        const row = await repo.findClientOf(trx, subId, clientId, true)
        if (!row) throw new AppError(CLIENT_ERRORS.CLIENT_NOT_FOUND)
        if (input.name !== undefined) await repo.renameClient(trx, subId, clientId, input.name.trim())
        if (input.status !== undefined && input.status !== row.status) {
          await repo.setClientStatus(trx, clientId, input.status, clock.now())
          await deps.invalidations.announce(trx, 'client', clientId)
        }
        return viewOf({ ...row, name: input.name?.trim() ?? row.name, status: input.status ?? row.status })
      })
    },

    /**
     * A new secret for a client of the subscription: the old one fails from now on, and so do the
     * tokens issued for it (their secret version is behind the client's), in every process as soon as
     * it hears of the change, as for a disabled client.
     */
    async newSecretOf(subId: string, clientId: string): Promise<{ clientId: string; clientSecret: string }> {
      const clientSecret = randomToken(32)
      return changing(clientId, async (trx) => {
        if (!(await repo.replaceSecret(trx, subId, clientId, hmacHex(pepper, clientSecret))))
          throw new AppError(CLIENT_ERRORS.CLIENT_NOT_FOUND)
        await deps.invalidations.announce(trx, 'client', clientId)
        return { clientId, clientSecret }
      })
    },

    /** The id of the subscription of this name, created when new (console users are made in one too). */
    ensureSubscription,
    subscriptionExists: async (name: string) => (await repo.findSubscriptionByName(db, name)) !== undefined,
    list: () => repo.listClients(db),
    count: () => repo.countClients(db),
  }
}
