import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../kit/errors.js'
import type { LocalWindows } from './local-windows.js'

/** Probes and scrapes are never limited: a load balancer polls from one address. */
const EXEMPT_ROUTES = new Set(['/healthz', '/readyz', '/metrics'])

/** The request-rate settings (RATE_LIMIT_*). */
export interface RateConfig {
  max: number
  windowSeconds: number
  overrides: ReadonlyMap<string, number>
  store: 'auto' | 'memory' | 'database'
  /** How often a process adds its counts to the shared windows (the bound on its writes, and on the error). */
  syncMs: number
}

/** The subject of a request's limit: its subscription once authenticated, else its client address. */
export function rateLimitKey(request: FastifyRequest): string {
  return request.tenant ? `sub:${request.tenant.subId}` : `ip:${normalizeIP(request.ip)}`
}

/**
 * Per-subscription rate limits on every route (issue 14.3), with @fastify/rate-limit: `RateLimit-Limit`,
 * `-Remaining`, `-Reset` on every answer, `Retry-After` and the contract's error body (429
 * RATE_LIMITED) past the limit. The check runs as a route hook, after the mount's authentication
 * hook, so the key is the token's subscription; requests without one are counted per address.
 *
 * With `shared` windows (PostgreSQL: every process shares the database) each process counts in
 * memory and reconciles with the database in the background (local-windows.ts: no statement on the
 * request path, at most one per sync interval, the error bound); without, in this process's memory
 * only (PGlite is one process by construction).
 * Registered before the routes: the plugin adds its hook to each route as it is declared.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  rate: RateConfig,
  shared: LocalWindows | undefined,
): Promise<void> {
  const windowMs = rate.windowSeconds * 1000
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    enableDraftSpec: true,
    timeWindow: windowMs,
    max: (request: FastifyRequest) =>
      (request.tenant ? rate.overrides.get(request.tenant.subId) : undefined) ?? rate.max,
    keyGenerator: rateLimitKey,
    allowList: (request: FastifyRequest) => EXEMPT_ROUTES.has(request.routeOptions.url ?? ''),
    skipOnError: true,
    cache: 10_000,
    ...(shared ? { store: sharedStore(shared) } : {}),
    errorResponseBuilder: (request, context) =>
      new AppError('RATE_LIMITED', {
        description: `Too many requests: at most ${context.max} per ${rate.windowSeconds} s for this ${request.tenant ? 'subscription' : 'address'}; retry after ${Math.max(1, Math.ceil(context.ttl / 1000))} s.`,
        additionalInfo: `limit: ${context.max} requests per ${rate.windowSeconds} s`,
      }),
  })
}

/**
 * A store class for @fastify/rate-limit over this process's counts of the shared windows
 * (local-windows.ts): the request path does no I/O; the counts reach the database in the background.
 */
function sharedStore(windows: LocalWindows) {
  return class SharedWindowsStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
      max: number,
    ): void {
      callback(null, windows.hit(key, timeWindow, max))
    }

    child(): SharedWindowsStore {
      return this
    }
  }
}
