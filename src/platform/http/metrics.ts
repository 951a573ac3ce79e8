import type { FastifyInstance } from 'fastify'
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client'

/** Prometheus metrics, one registry per app so tests can build many apps in one process. */
export function registerMetrics(app: FastifyInstance): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'mailroom_' })
  const duration = new Histogram({
    name: 'mailroom_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  // One labelled child per method, status and route, found by a plain string key (prom-client's own
  // lookup hashes the label object on every call). The route is the pattern, never the raw URL: ids
  // in paths would explode the label set, so the map is as small as the route table. Callback
  // style: an async hook would cost every request a promise.
  const children = new Map<string, ReturnType<typeof duration.labels>>()
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched'
    const key = `${request.method} ${reply.statusCode} ${route}`
    let child = children.get(key)
    if (child === undefined) {
      child = duration.labels({ method: request.method, route, status: String(reply.statusCode) })
      children.set(key, child)
    }
    child.observe(reply.elapsedTime / 1000)
    done()
  })
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType)
    return registry.metrics()
  })
  return registry
}
