import type { FastifyInstance } from 'fastify'
import { AppError } from '../kit/errors.js'

/**
 * Request body limits per route (issue 26): a JSON body is read into one string and parsed on the
 * event loop, so its size is time every other request waits. Eight loops of 1 MiB invalid JSON
 * (all 400s, under the rate limit) cut another subscription's served requests by 91–96%. So each
 * route accepts what its schema can legitimately need (the caller's table, with margin), and a
 * subscription's large bodies are bounded twice before a byte of them is read: at most
 * `largePerSubscription` at once, and at most `largeBytesPerSecond` of them over time (a token
 * bucket holding `largeBurstBytes`). Past either: 429 TENANT_BUSY with Retry-After. Bounding the
 * number at once alone was not enough: two bodies in flight, answered back to back, still kept the
 * event loop busy reading and parsing for half of every second (measured with bench:neighbour).
 */
export interface BodyLimitOptions {
  /** Bytes a route accepts when the table does not name it. */
  defaultBytes: number
  /** Routes needing more (or less): `METHOD url` as declared → bytes. */
  routes: Readonly<Record<string, number>>
  /** A body declared larger than this (Content-Length) is large. */
  largeBytes: number
  /** Large bodies one subscription may send at once (per process). */
  largePerSubscription: number
  /** Bytes of large bodies one subscription may send per second (per process), on average. */
  largeBytesPerSecond: number
  /** …and at once after a quiet while: at least the largest route limit, or that body could never pass. */
  largeBurstBytes: number
}

/** Sets each route's limit as it is declared; a route that sets its own (uploads) keeps it. */
export function registerBodyLimits(
  app: FastifyInstance,
  opts: BodyLimitOptions,
  subscriptionOf: (request: { tenant?: { subId: string } | null }) => string | undefined,
  /** Milliseconds (the service's clock: tests step it). */
  now: () => number = Date.now,
): void {
  app.addHook('onRoute', (route) => {
    if (route.bodyLimit !== undefined) return
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    const limits = methods.map((m) => opts.routes[`${m} ${route.url}`]).filter((n): n is number => n !== undefined)
    route.bodyLimit = limits.length > 0 ? Math.max(...limits) : opts.defaultBytes
  })

  const inFlight = new Map<string, number>()
  const release = (subId: string) => {
    const n = (inFlight.get(subId) ?? 1) - 1
    if (n <= 0) inFlight.delete(subId)
    else inFlight.set(subId, n)
  }
  const holding = new WeakMap<object, string>()
  const letGo = (request: object) => {
    const subId = holding.get(request)
    if (subId === undefined) return
    holding.delete(request)
    release(subId)
  }
  // Answered or abandoned by the client: either way its body is no longer being read.
  app.addHook('onResponse', (request, _reply, done) => {
    letGo(request)
    done()
  })
  app.addHook('onRequestAbort', (request, done) => {
    letGo(request)
    done()
  })
  const budget = new ByteBudget(opts.largeBytesPerSecond, opts.largeBurstBytes, now)
  const busy = (description: string, additionalInfo: string, retryAfterSeconds: number) =>
    new AppError('TENANT_BUSY', { description, additionalInfo, headers: { 'retry-after': String(retryAfterSeconds) } })
  // preParsing runs after authentication (onRequest) and before a byte of the body is read.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const declared = Number(request.headers['content-length'] ?? 0)
    const chunked = request.headers['transfer-encoding'] !== undefined
    const subId = subscriptionOf(request)
    if (subId === undefined || (!chunked && !(declared > opts.largeBytes))) return done(null, payload)
    // Past the route's limit Fastify answers 413 without reading it: nothing to bound.
    const limit = request.routeOptions.bodyLimit ?? opts.defaultBytes
    if (!chunked && declared > limit) return done(null, payload)
    const n = inFlight.get(subId) ?? 0
    if (n >= opts.largePerSubscription)
      return done(
        busy(
          `This subscription is already sending ${opts.largePerSubscription} request bod${opts.largePerSubscription === 1 ? 'y' : 'ies'} over ${opts.largeBytes} bytes at once; retry when one is answered.`,
          `limit: ${opts.largePerSubscription} concurrent bodies over ${opts.largeBytes} bytes`,
          1,
        ),
      )
    // A chunked body says not its size: it is charged as the most its route accepts.
    const bytes = chunked ? limit : declared
    const wait = budget.take(subId, bytes)
    if (wait > 0)
      return done(
        busy(
          `This subscription sent more than ${opts.largeBytesPerSecond} bytes a second of request bodies over ${opts.largeBytes} bytes; retry in ${Math.ceil(wait / 1000)} s.`,
          `limit: ${opts.largeBytesPerSecond} bytes per second of bodies over ${opts.largeBytes} bytes`,
          Math.ceil(wait / 1000),
        ),
      )
    inFlight.set(subId, n + 1)
    holding.set(request, subId)
    done(null, payload)
  })
}

/**
 * Per-subscription token buckets of bytes: `perSecond` refill up to `burst`. Buckets that are full
 * again are forgotten, so memory follows the subscriptions sending large bodies now.
 */
class ByteBudget {
  readonly #buckets = new Map<string, { tokens: number; at: number }>()

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {}

  /** Takes `bytes` from the subscription's bucket and returns 0, or takes nothing and returns the ms until they are there. */
  take(subId: string, bytes: number): number {
    const now = this.now()
    const bucket = this.#buckets.get(subId) ?? { tokens: this.burst, at: now }
    const tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) * this.perSecond) / 1000)
    const need = Math.min(bytes, this.burst)
    if (tokens < need) {
      this.#buckets.set(subId, { tokens, at: now })
      return Math.ceil(((need - tokens) * 1000) / this.perSecond)
    }
    this.#buckets.set(subId, { tokens: tokens - need, at: now })
    if (this.#buckets.size > 10_000) this.#forgetFull(now)
    return 0
  }

  #forgetFull(now: number): void {
    for (const [subId, b] of this.#buckets)
      if (b.tokens + ((now - b.at) * this.perSecond) / 1000 >= this.burst) this.#buckets.delete(subId)
  }
}
