import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onErrorHookHandler,
  onResponseHookHandler,
  onSendHookHandler,
} from 'fastify'
import { Counter, Gauge, type Registry } from 'prom-client'
import { HeavyShare } from './heavy-share.js'
import type { Presence } from './presence.js'
import { TenantGate } from './tenant-gate.js'
import { WorkSlots } from './work-slots.js'

/** The kinds of expensive operation bounded per subscription; routes name theirs in `config.tenantGate`. */
export const GATE_KINDS = ['searches', 'exports', 'bulkOperations'] as const
export type GateKind = (typeof GATE_KINDS)[number]

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * For work that takes the process-wide heavy slots piece by piece rather than for the whole
     * request (exports, see HEAVY): waits for a slot and returns its release. Undefined elsewhere.
     */
    heavyTurn?: () => Promise<() => void>
  }
  interface FastifyContextConfig {
    /** The per-subscription concurrency bound this route's work counts against (see registerTenantGates). */
    tenantGate?: GateKind | ((request: FastifyRequest) => GateKind | undefined)
  }
}

const WHAT: Record<GateKind, string> = {
  searches: 'package searches',
  exports: 'CSV exports',
  bulkOperations: 'bulk operations',
}

export interface Gates {
  perTenant: Record<GateKind, TenantGate>
  /** Shared by every subscription: the heavy statements of all of them together (not exports, see below). */
  heavy: WorkSlots
  /** Each subscription's share of those slots over time, while others are served. */
  share: HeavyShare
  presence: Presence
}

/**
 * How each kind takes the heavy slots. Searches and bulk operations hold one for the whole request.
 * An export takes one per batch (its read and rendering, search/service.ts), not for the request:
 * held for a stream of seconds to minutes it would keep every other tenant's searches waiting; not
 * taken at all, one export and one search ran at once and took both cores (issue 14's neighbour
 * bench: the quiet tenant's p99 2.6x idle with exports alone). Per batch, exports and searches take
 * turns.
 */
const HEAVY: Record<GateKind, 'request' | 'batch'> = {
  searches: 'request',
  exports: 'batch',
  bulkOperations: 'request',
}

/** What the gates are built from (the app's `limits` settings). */
export interface GateLimits {
  statementTimeoutMs: number
  concurrent: Record<GateKind, number>
  heavyOperations: number
  heavyShare: { share: number; burstMs: number }
}

export function tenantGates(limits: GateLimits, presence: Presence): Gates {
  const { concurrent } = limits
  return {
    perTenant: {
      searches: new TenantGate(WHAT.searches, concurrent.searches),
      exports: new TenantGate(WHAT.exports, concurrent.exports),
      bulkOperations: new TenantGate(WHAT.bulkOperations, concurrent.bulkOperations),
    },
    heavy: new WorkSlots(limits.heavyOperations, limits.statementTimeoutMs),
    share: new HeavyShare({
      ...limits.heavyShare,
      slots: limits.heavyOperations,
      maxWaitMs: limits.statementTimeoutMs,
      what: 'heavy work (searches, exports, bulk operations)',
      presence,
    }),
    presence,
  }
}

/**
 * A heavy turn of the subscription: its time share's wait, then a slot, held against its share
 * until the returned function gives it back. `bounded` as WorkSlots'.
 */
async function heavyTurn(gates: Gates, subId: string, bounded = true): Promise<() => void> {
  await gates.share.turn(subId, bounded)
  const release = await gates.heavy.acquire(bounded)
  const end = gates.share.begin(subId)
  return () => {
    end()
    release()
  }
}

const released = Symbol('tenantGateRelease')

/**
 * Holds one of the subscription's slots of the route's gate from after validation until the work
 * is over: the response sent, or (for a client gone mid-request) the handler done and the socket
 * closed. A streamed export holds its slot until the last row is out. Beyond the bound: 429
 * TENANT_BUSY with Retry-After, at once (TenantGate). Searches and bulk operations then wait their
 * turn for one of the process-wide heavy slots (WorkSlots).
 */
export function registerTenantGates(app: FastifyInstance, gates: Gates, metrics: Registry): void {
  // What an operator needs to see that heavy work queues (and raise HEAVY_OPERATIONS_MAX or add processes).
  for (const [name, help, of] of [
    ['mailroom_heavy_slots_busy', 'Heavy-work slots in use (searches, bulk operations, export batches)', 'busy'],
    ['mailroom_heavy_slots_waiting', 'Requests waiting for a heavy-work slot', 'waiting'],
  ] as const) {
    new Gauge({
      name,
      help,
      registers: [metrics],
      collect() {
        this.set(gates.heavy.state[of])
      },
    })
  }
  // How often, and how long, the time share held a subscription back while others were served.
  for (const [name, help, of] of [
    ['mailroom_heavy_share_held_total', 'Heavy turns held back by a subscription’s time share (HEAVY_SHARE)', 'turns'],
    ['mailroom_heavy_share_held_seconds_total', 'Seconds heavy turns were held back by the time share', 'ms'],
  ] as const) {
    let counted = 0
    new Counter({
      name,
      help,
      registers: [metrics],
      collect() {
        const now = of === 'ms' ? gates.share.held.ms / 1000 : gates.share.held.turns
        this.inc(now - counted)
        counted = now
      },
    })
  }
  // Callback style: most routes declare no gate, and an async hook would cost each of their requests a promise and a tick.
  app.addHook('preHandler', (request, reply, done) => {
    if (!request.tenant) return done()
    // Every request counts as presence: the time share protects the light requests of the others.
    gates.presence.seen(request.tenant.subId)
    const declared = request.routeOptions.config.tenantGate
    if (!declared) return done()
    const kind = typeof declared === 'function' ? declared(request) : declared
    if (!kind) return done()
    enter(request, reply, kind).then(() => done(), done)
  })
  const enter = async (request: FastifyRequest, reply: FastifyReply, kind: GateKind) => {
    const { subId } = request.tenant
    const releaseTenant = gates.perTenant[kind].acquire(subId)
    let releaseHeavy: (() => void) | undefined
    const release = () => {
      releaseHeavy?.()
      releaseTenant()
    }
    let handled = false
    let closed = false
    ;(request as unknown as Record<symbol, () => void>)[released] = () => {
      handled = true
      if (closed) release()
    }
    // Listening before any wait: a client that leaves while the request waits for a heavy slot
    // must still give its slots back once the handler is done (the close event does not repeat).
    const gone = () => reply.raw.destroyed || request.raw.destroyed || request.raw.socket?.destroyed === true
    const onClose = () => {
      closed = true
      if (handled) release()
    }
    reply.raw.once('close', onClose)
    if (gone()) closed = true
    // A refused wait (SERVICE_BUSY, TENANT_BUSY) ends as an error answer, which releases the tenant's slot above.
    if (HEAVY[kind] === 'batch') request.heavyTurn = () => heavyTurn(gates, subId, false)
    else releaseHeavy = await heavyTurn(gates, subId)
    if (gone()) closed = true
  }
  const handlerDone = (request: FastifyRequest) => {
    ;(request as unknown as Record<symbol, (() => void) | undefined>)[released]?.()
  }
  // Only a gated route holds slots to give back: the three release hooks go on those routes alone.
  const onSend: onSendHookHandler = (request, _reply, payload, done) => {
    handlerDone(request)
    done(null, payload)
  }
  const onError: onErrorHookHandler = (request, _reply, _error, done) => {
    handlerDone(request)
    done()
  }
  const onResponse: onResponseHookHandler = (request, _reply, done) => {
    handlerDone(request)
    done()
  }
  app.addHook('onRoute', (route) => {
    if (!route.config?.tenantGate) return
    const r = route as unknown as Record<string, unknown>
    for (const [name, hook] of [
      ['onSend', onSend],
      ['onError', onError],
      ['onResponse', onResponse],
    ] as const) {
      const hooks = r[name]
      r[name] = hooks === undefined ? [hook] : Array.isArray(hooks) ? [...(hooks as unknown[]), hook] : [hooks, hook]
    }
  })
}
