import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../kit/errors.js'
import type { WindowCounter } from './window-counter.js'

/** Probes and scrapes are never limited: a load balancer polls from one address. */
const EXEMPT_ROUTES = new Set(['/healthz', '/readyz', '/metrics'])

/** The request-rate settings (RATE_LIMIT_*). */
export interface RateConfig {
  max: number
  windowSeconds: number
  overrides: ReadonlyMap<string, number>
  store: 'auto' | 'memory' | 'database'
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
 * With a `counter` (PostgreSQL: every process shares the database) the windows live in the
 * database; without one in this process's memory (PGlite is one process by construction).
 * Registered before the routes: the plugin adds its hook to each route as it is declared.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  rate: RateConfig,
  counter: WindowCounter | undefined,
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
    // A counter the database cannot bump lets the request through: the limit protects the
    // service, it must not be what takes it down.
    skipOnError: true,
    cache: 10_000,
    ...(counter ? { store: databaseStore(counter) } : {}),
    errorResponseBuilder: (request, context) =>
      new AppError('RATE_LIMITED', {
        description: `Too many requests: at most ${context.max} per ${rate.windowSeconds} s for this ${request.tenant ? 'subscription' : 'address'}; retry after ${Math.max(1, Math.ceil(context.ttl / 1000))} s.`,
        additionalInfo: `limit: ${context.max} requests per ${rate.windowSeconds} s`,
      }),
  })
}

/**
 * A store class for @fastify/rate-limit over the shared window counters, without a database write
 * per request: below half its limit a key's hits are counted here and added to the shared window
 * in one statement every FLUSH_MS (the count a request sees may then miss the last FLUSH_MS of the
 * other processes' hits); from half its limit on, and for a key's first hit in a window, each hit
 * goes to the database at once, so the limit itself holds exactly across processes. Once the shared
 * window is known to be spent, the rest of it is refused here without a write: a window only grows
 * until it ends, and a client flooding past its limit must not cost the database a write per refusal.
 */
const FLUSH_MS = 50

function databaseStore(counter: WindowCounter) {
  interface Entry {
    hits: number
    endsAt: number
    pending: number
    timer?: NodeJS.Timeout
    windowMs: number
  }
  const entries = new Map<string, Entry>()

  async function flush(key: string, entry: Entry, extra: number): Promise<Entry> {
    if (entry.timer) clearTimeout(entry.timer)
    entry.timer = undefined
    const amount = entry.pending + extra
    entry.pending = 0
    const { hits, endsAt } = await counter.hit(`rate:${key}`, entry.windowMs, amount)
    entry.hits = hits
    entry.endsAt = endsAt
    return entry
  }

  return class DatabaseRateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
      max: number,
    ): void {
      const now = counter.now()
      let entry = entries.get(key)
      if (!entry || entry.endsAt <= now) {
        if (entry?.timer) clearTimeout(entry.timer)
        entry = { hits: 0, endsAt: 0, pending: 0, windowMs: timeWindow }
        // Bounded memory: a flood of addresses keeps only the most recent keys.
        if (entries.size >= 10_000) entries.delete(entries.keys().next().value!)
        entries.set(key, entry)
      }
      const known = entry
      if (known.endsAt !== 0 && known.hits >= max) {
        callback(null, { current: known.hits + 1, ttl: Math.max(0, known.endsAt - now) })
        return
      }
      if (known.endsAt === 0 || known.hits + known.pending + 1 > max / 2) {
        flush(key, known, 1).then(
          ({ hits, endsAt }) => callback(null, { current: hits, ttl: Math.max(0, endsAt - counter.now()) }),
          (error: Error) => callback(error),
        )
        return
      }
      known.pending++
      known.timer ??= setTimeout(() => void flush(key, known, 0).catch(() => {}), FLUSH_MS).unref()
      callback(null, { current: known.hits + known.pending, ttl: Math.max(0, known.endsAt - now) })
    }

    child(): DatabaseRateLimitStore {
      return this
    }
  }
}
