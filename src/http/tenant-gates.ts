import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import { TenantGate } from '../shared/tenant-gate.js'
import { WorkSlots } from '../shared/work-slots.js'

/** The kinds of expensive operation bounded per subscription; routes name theirs in `config.tenantGate`. */
export const GATE_KINDS = ['searches', 'exports', 'bulkOperations'] as const
export type GateKind = (typeof GATE_KINDS)[number]

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The per-subscription concurrency bound this route's work counts against (see registerTenantGates). */
    tenantGate?: GateKind | ((request: FastifyRequest) => GateKind | undefined)
  }
}

const WHAT: Record<GateKind, string> = { searches: 'package searches', exports: 'CSV exports', bulkOperations: 'bulk operations' }

export interface Gates {
  perTenant: Record<GateKind, TenantGate>
  /** Shared by every subscription: the heavy statements of all of them together (not exports, see below). */
  heavy: WorkSlots
}

/**
 * Exports take no heavy slot: one holds its work for as long as its rows stream (seconds to minutes)
 * and would keep every other tenant's searches waiting; its database side is cheap keyset batches,
 * and its rendering gives the event loop back every hundred rows (search.service.ts).
 */
const HEAVY: Record<GateKind, boolean> = { searches: true, exports: false, bulkOperations: true }

export function tenantGates(limits: Config['limits']): Gates {
  const { concurrent } = limits
  return {
    perTenant: {
      searches: new TenantGate(WHAT.searches, concurrent.searches),
      exports: new TenantGate(WHAT.exports, concurrent.exports),
      bulkOperations: new TenantGate(WHAT.bulkOperations, concurrent.bulkOperations),
    },
    heavy: new WorkSlots(limits.heavyOperations, limits.statementTimeoutMs),
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
export function registerTenantGates(app: FastifyInstance, gates: Gates): void {
  app.addHook('preHandler', async (request, reply) => {
    const declared = request.routeOptions.config.tenantGate
    if (!declared || !request.tenant) return
    const kind = typeof declared === 'function' ? declared(request) : declared
    if (!kind) return
    const releaseTenant = gates.perTenant[kind].acquire(request.tenant.subId)
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
    // A refused wait (SERVICE_BUSY) ends as an error answer, which releases the tenant's slot above.
    if (HEAVY[kind]) releaseHeavy = await gates.heavy.acquire()
    if (gone()) closed = true
  })
  const handlerDone = async (request: FastifyRequest) => {
    ;(request as unknown as Record<symbol, (() => void) | undefined>)[released]?.()
  }
  app.addHook('onSend', handlerDone)
  app.addHook('onError', handlerDone)
  app.addHook('onResponse', handlerDone)
}
