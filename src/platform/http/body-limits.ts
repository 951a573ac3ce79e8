import type { FastifyInstance } from 'fastify'
import { AppError } from '../kit/errors.js'

/**
 * Request body limits per route (issue 26): a JSON body is read into one string and parsed on the
 * event loop, so its size is time every other request waits. Eight loops of 1 MiB invalid JSON
 * (all 400s, under the rate limit) cut another subscription's served requests by 91–96%. So each
 * route accepts what its schema can legitimately need (the caller's table, with margin), and a
 * subscription parses at most `largePerSubscription` large bodies at once: one more is a 429
 * (TENANT_BUSY) before its body is read.
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
}

/** Sets each route's limit as it is declared; a route that sets its own (uploads) keeps it. */
export function registerBodyLimits(
  app: FastifyInstance,
  opts: BodyLimitOptions,
  subscriptionOf: (request: { tenant?: { subId: string } | null }) => string | undefined,
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
  // preParsing runs after authentication (onRequest) and before a byte of the body is read.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const declared = Number(request.headers['content-length'] ?? 0)
    const chunked = request.headers['transfer-encoding'] !== undefined
    const subId = subscriptionOf(request)
    if (subId === undefined || (!chunked && !(declared > opts.largeBytes))) return done(null, payload)
    const n = inFlight.get(subId) ?? 0
    if (n >= opts.largePerSubscription)
      return done(
        new AppError('TENANT_BUSY', {
          description: `This subscription is already sending ${opts.largePerSubscription} request bodies over ${opts.largeBytes} bytes at once; retry when one is answered.`,
          additionalInfo: `limit: ${opts.largePerSubscription} concurrent bodies over ${opts.largeBytes} bytes`,
          headers: { 'retry-after': '1' },
        }),
      )
    inFlight.set(subId, n + 1)
    holding.set(request, subId)
    done(null, payload)
  })
}
