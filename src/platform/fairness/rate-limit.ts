import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify'
import { AppError } from '../kit/errors.js'
import { systemClock } from '../kit/clock.js'
import { LocalWindows } from './local-windows.js'

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
  /** The API processes one database serves, at most (the shared windows' reporting threshold, local-windows.ts). */
  processes: number
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The subscription a mount with its own credentials (SCIM's bearer tokens) authenticated, for
     * the limit: identity providers share egress addresses across their customers.
     */
    rateSubId?: string | null
  }
}

const subIdOf = (request: FastifyRequest): string | undefined => request.tenant?.subId ?? request.rateSubId ?? undefined

/** The subject of a request's limit: its subscription once authenticated, else its client address. */
export function rateLimitKey(request: FastifyRequest): string {
  const subId = subIdOf(request)
  return subId ? `sub:${subId}` : `ip:${normalizeIP(request.ip)}`
}

/**
 * Per-subscription rate limits on every route (issue 14.3): `RateLimit-Limit`, `-Remaining`,
 * `-Reset` on every answer, `Retry-After` and the contract's error body (429 RATE_LIMITED) past the
 * limit. The check runs as a route hook, after the mount's authentication hook, so the key is the
 * token's subscription; requests without one are counted per address.
 *
 * The routes without a limit of their own are checked by one synchronous hook of ours (no promise,
 * no tick: the same answers as @fastify/rate-limit's hook, whose six awaits per request were a
 * tenth of an authenticated GET's cost). Routes with their own (`config.rateLimit`: the unsubscribe
 * link) and the token endpoint's `app.rateLimit()` keep the plugin, over the same counts.
 *
 * With `shared` windows (PostgreSQL: every process shares the database) each process counts in
 * memory and reconciles with the database in the background (local-windows.ts: no statement on the
 * request path, none at all for a key below its reporting threshold, the error bound); without, in
 * this process's memory only (PGlite is one process by construction).
 * Registered before the routes: the hooks are added to each route as it is declared.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  rate: RateConfig,
  shared: LocalWindows | undefined,
): Promise<void> {
  const windowMs = rate.windowSeconds * 1000
  const windows = shared ?? new LocalWindows(undefined, systemClock, rate)
  const maxOf = (request: FastifyRequest) =>
    (subIdOf(request) ? rate.overrides.get(subIdOf(request)!) : undefined) ?? rate.max
  const refusal = (request: FastifyRequest, max: number, ttl: number) =>
    new AppError('RATE_LIMITED', {
      description: `Too many requests: at most ${max} per ${rate.windowSeconds} s for this ${subIdOf(request) ? 'subscription' : 'address'}; retry after ${Math.max(1, Math.ceil(ttl / 1000))} s.`,
      additionalInfo: `limit: ${max} requests per ${rate.windowSeconds} s`,
    })
  await app.register(rateLimit, {
    global: false,
    hook: 'onRequest',
    enableDraftSpec: true,
    timeWindow: windowMs,
    max: maxOf,
    keyGenerator: rateLimitKey,
    skipOnError: true,
    store: windowsStore(windows, rate, shared !== undefined),
    errorResponseBuilder: (request, context) => refusal(request, context.max, context.ttl),
  })

  const check: onRequestHookHandler = (request, reply, done) => {
    const max = maxOf(request)
    const { current, ttl } = windows.hit(rateLimitKey(request), windowMs, max)
    const reset = Math.ceil(ttl / 1000)
    reply.header('ratelimit-limit', max)
    if (current <= max) {
      reply.header('ratelimit-remaining', max - current)
      reply.header('ratelimit-reset', reset)
      return done()
    }
    reply.header('ratelimit-remaining', 0)
    reply.header('ratelimit-reset', reset)
    reply.header('retry-after', reset)
    done(refusal(request, max, ttl))
  }
  app.addHook('onRoute', (route) => {
    if (route.config?.rateLimit != null || EXEMPT_ROUTES.has(route.url)) return
    const hooks = route.onRequest
    route.onRequest = hooks === undefined ? [check] : Array.isArray(hooks) ? [...hooks, check] : [hooks, check]
  })
}

/**
 * A store class for @fastify/rate-limit over the same counts as the routes' hook. Shared windows:
 * one for every route (the database's). In memory, a route with its own limit counts apart, as the
 * plugin's own store does.
 */
function windowsStore(windows: LocalWindows, rate: RateConfig, shared: boolean) {
  // The plugin constructs the store with its options, which it does not need.
  return class WindowsStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
      max: number,
    ): void {
      callback(null, windows.hit(key, timeWindow, max))
    }

    child(): WindowsStore {
      if (shared) return this
      const Own = windowsStore(new LocalWindows(undefined, systemClock, rate), rate, false)
      return new Own()
    }
  }
}
