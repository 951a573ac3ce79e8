import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import { TenantGate } from '../shared/tenant-gate.js'

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

export function tenantGates(limits: Config['limits']['concurrent']): Record<GateKind, TenantGate> {
  return {
    searches: new TenantGate(WHAT.searches, limits.searches),
    exports: new TenantGate(WHAT.exports, limits.exports),
    bulkOperations: new TenantGate(WHAT.bulkOperations, limits.bulkOperations),
  }
}

const released = Symbol('tenantGateRelease')

/**
 * Holds one of the subscription's slots of the route's gate from after validation until the work
 * is over: the response sent, or (for a client gone mid-request) the handler done and the socket
 * closed. A streamed export holds its slot until the last row is out. Beyond the bound: 429
 * TENANT_BUSY with Retry-After, at once (TenantGate).
 */
export function registerTenantGates(app: FastifyInstance, gates: Record<GateKind, TenantGate>): void {
  app.addHook('preHandler', async (request, reply) => {
    const declared = request.routeOptions.config.tenantGate
    if (!declared || !request.tenant) return
    const kind = typeof declared === 'function' ? declared(request) : declared
    if (!kind) return
    const release = gates[kind].acquire(request.tenant.subId)
    let handled = false
    let closed = false
    ;(request as unknown as Record<symbol, () => void>)[released] = () => {
      handled = true
      if (closed) release()
    }
    reply.raw.once('close', () => {
      closed = true
      if (handled) release()
    })
  })
  const handlerDone = async (request: FastifyRequest) => {
    ;(request as unknown as Record<symbol, (() => void) | undefined>)[released]?.()
  }
  app.addHook('onSend', handlerDone)
  app.addHook('onError', handlerDone)
  app.addHook('onResponse', handlerDone)
}
