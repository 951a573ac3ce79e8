import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import { AppError } from '../shared/errors.js'
import type { WindowCounter } from './window-counter.js'

/** Probes and scrapes are never limited: a load balancer polls from one address. */
const EXEMPT_ROUTES = new Set(['/healthz', '/readyz', '/metrics'])

type RateConfig = Config['limits']['rate']

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
 * With a `counter` (PostgreSQL: every process shares the database) the windows live in the
 * database; without one in this process's memory (PGlite is one process by construction).
 * Registered before the routes: the plugin adds its hook to each route as it is declared.
 */
export async function registerRateLimits(app: FastifyInstance, rate: RateConfig, counter: WindowCounter | undefined): Promise<void> {
  const windowMs = rate.windowSeconds * 1000
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    enableDraftSpec: true,
    timeWindow: windowMs,
    max: (request: FastifyRequest) => (request.tenant ? rate.overrides.get(request.tenant.subId) : undefined) ?? rate.max,
    keyGenerator: rateLimitKey,
    allowList: (request: FastifyRequest) => EXEMPT_ROUTES.has(request.routeOptions.url ?? ''),
    // A counter the database cannot bump lets the request through: the limit protects the
    // service, it must not be what takes it down.
    skipOnError: true,
    cache: 10_000,
    ...(counter ? { store: databaseStore(counter) } : {}),
    errorResponseBuilder: (request, context) => new AppError('RATE_LIMITED', {
      description: `Too many requests: at most ${context.max} per ${rate.windowSeconds} s for this ${request.tenant ? 'subscription' : 'address'}; retry after ${Math.max(1, Math.ceil(context.ttl / 1000))} s.`,
      additionalInfo: `limit: ${context.max} requests per ${rate.windowSeconds} s`,
    }),
  })
}

/** A store class for @fastify/rate-limit over the shared window counters. */
function databaseStore(counter: WindowCounter) {
  return class DatabaseRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      counter.hit(`rate:${key}`, timeWindow).then(
        ({ hits, endsAt }) => callback(null, { current: hits, ttl: Math.max(0, endsAt - counter.now()) }),
        (error: Error) => callback(error),
      )
    }

    child(): DatabaseRateLimitStore {
      return this
    }
  }
}
