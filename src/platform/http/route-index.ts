import type { FastifyInstance } from 'fastify'

/** The registered routes' paths by method, so the not-found handler can tell a 405 from a 404. */
export function registerRouteIndex(app: FastifyInstance): { methodsOf(path: string): string[] } {
  const routes: Array<{ pattern: RegExp; methods: string[] }> = []
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    routes.push({ pattern: patternOf(route.url), methods })
  })
  return {
    methodsOf(path) {
      const out = new Set<string>()
      for (const r of routes) if (r.pattern.test(path)) for (const m of r.methods) out.add(m)
      return [...out].sort()
    },
  }
}

/** find-my-way's syntax: `:name` one segment (optionally with a regexp, never used here), `*` the rest. */
function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((seg) => (seg === '*' ? '.*' : seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/')
  return new RegExp(`^${source}$`)
}
