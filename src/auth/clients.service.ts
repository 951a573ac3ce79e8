import type { Db } from '../db/database.js'
import { inTransaction } from '../db/transaction.js'
import type { Clock } from '../shared/clock.js'
import type { Invalidations } from '../shared/invalidations.js'
import { constantTimeEqualHex, hmacHex, randomToken } from '../shared/crypto.js'
import { newId } from '../shared/ids.js'
import * as repo from './clients.repo.js'

export interface CreatedClient {
  clientId: string
  clientSecret: string
  subId: string
}

export interface ClientIdentity {
  clientId: string
  subId: string
  status: 'active' | 'disabled'
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
      return { clientId: row.client_id, subId: row.sub_id, status: row.status }
    },

    /** The cached status when still fresh; undefined when the database must be asked. */
    peekActive(clientId: string, nowMs = clock.now().getTime()): boolean | undefined {
      const hit = cache.get(clientId)
      if (!hit || nowMs - hit.at >= deps.cacheSeconds * 1000) return undefined
      return hit.row?.status === 'active'
    },

    /** Whether tokens of this client are still honoured (cached for at most `cacheSeconds`). */
    async isActive(clientId: string): Promise<boolean> {
      return (await lookup(clientId))?.status === 'active'
    },

    /** Every process of the deployment honours the change as soon as it hears of it (PostgreSQL: well within a second). */
    async setStatus(clientId: string, status: 'active' | 'disabled'): Promise<boolean> {
      try {
        return await inTransaction(db, async (trx) => {
          const found = await repo.setClientStatus(trx, clientId, status, clock.now())
          if (found) await deps.invalidations.announce(trx, 'client', clientId)
          return found
        })
      } finally {
        drops++
        cache.delete(clientId)
      }
    },

    /** The id of the subscription of this name, created when new (console users are made in one too). */
    ensureSubscription,
    subscriptionExists: async (name: string) => (await repo.findSubscriptionByName(db, name)) !== undefined,
    list: () => repo.listClients(db),
    count: () => repo.countClients(db),
  }
}
