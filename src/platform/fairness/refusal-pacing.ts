import type { FastifyInstance } from 'fastify'

/**
 * Paces refusals (issue 14, the noisy neighbour): every 429 (rate limit, a tenant's concurrency
 * bound, quotas, guessing limits) is sent after `delayMs`, or after its Retry-After when that is
 * sooner. A client that honours Retry-After loses nothing: it would have waited longer anyway. A
 * client that resends at once gets one answer per connection per delay instead of thousands of
 * refusals a second, each of which cost this process's one event loop about as much as a light
 * request (a response's headers and its write to the socket): measured with autocannon, that flood
 * doubled the other tenants' p99. A waiting refusal costs a timer and its socket, nothing else.
 *
 * As nginx's `limit_req` without `nodelay`, but for the refusal, not the work: a request over its
 * limit is never run later, so nothing unacknowledged piles up.
 */
export function registerRefusalPacing(app: FastifyInstance, delayMs: number): void {
  if (delayMs <= 0) return
  // Callback style: every answer passes here, and only a 429 waits.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.statusCode !== 429) return done(null, payload)
    const retryAfter = Number(reply.getHeader('retry-after'))
    const wait = Number.isFinite(retryAfter) && retryAfter >= 0 ? Math.min(delayMs, retryAfter * 1000) : delayMs
    if (wait <= 0) return done(null, payload)
    // Not ref'ed: a shutting-down process does not wait for a refusal's delay.
    setTimeout(() => done(null, payload), wait).unref()
  })
}
