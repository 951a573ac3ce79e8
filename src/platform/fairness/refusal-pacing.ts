import type { FastifyInstance } from 'fastify'
import { Counter, type Registry } from 'prom-client'

/**
 * How long a refusal waits: `delayMs`, or its Retry-After when that is sooner (a client that
 * honours Retry-After never waits longer for the refusal than it would have before resending).
 */
export function refusalWaitMs(delayMs: number, retryAfterHeader: unknown): number {
  const retryAfter = Number(retryAfterHeader)
  const wait =
    retryAfterHeader !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0
      ? Math.min(delayMs, retryAfter * 1000)
      : delayMs
  return Math.max(0, wait)
}

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
 * limit is never run later, so nothing unacknowledged piles up. The refusals paced, and the time
 * they were held, are counted at /metrics (what an operator reads, and what the tests assert
 * instead of timing answers).
 */
export function registerRefusalPacing(app: FastifyInstance, delayMs: number, metrics: Registry): void {
  if (delayMs <= 0) return
  const paced = new Counter({
    name: 'mailroom_refusals_paced_total',
    help: 'Refusals (429) held back before they were sent (REFUSAL_DELAY_MS)',
    registers: [metrics],
  })
  const pacedSeconds = new Counter({
    name: 'mailroom_refusals_paced_seconds_total',
    help: 'Seconds refusals (429) were held back before they were sent',
    registers: [metrics],
  })
  // Callback style: every answer passes here, and only a 429 waits.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.statusCode !== 429) return done(null, payload)
    const wait = refusalWaitMs(delayMs, reply.getHeader('retry-after'))
    if (wait <= 0) return done(null, payload)
    paced.inc()
    pacedSeconds.inc(wait / 1000)
    // Not ref'ed: a shutting-down process does not wait for a refusal's delay.
    setTimeout(() => done(null, payload), wait).unref()
  })
}
