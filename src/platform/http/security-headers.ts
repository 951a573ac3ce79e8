import type { FastifyInstance } from 'fastify'
import helmetPackage from 'helmet'

/** The API answers JSON only: nothing in a response may load, run or be framed (OWASP REST Security). */
const API_CSP = { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] }

/**
 * A small HTML page of the server's own with a form that posts back to it (the unsubscribe page):
 * nothing loads or runs, its inline style attributes apply, and its form may submit to this origin
 * only. The API's `form-action 'none'` made the page's button do nothing in a browser (issue 25).
 */
export const FORM_PAGE_HELMET = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      styleSrc: ["'unsafe-inline'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
}

/**
 * The docs page: swagger-ui's scripts and styles come from this server (the installed package),
 * its logo and icons are data: URLs, "try it out" calls this server and the public URL, and it
 * uses inline style attributes. No other origin, no inline script, no framing.
 */
function docsCsp(publicUrl: string) {
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'", new URL(publicUrl).origin],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  }
}

/** Helmet's options, as routes give them in `config.helmet` (the console's page, the unsubscribe form, the docs). */
type HelmetOptions = Record<string, unknown>
type HelmetMiddleware = (req: unknown, res: unknown, next: () => void) => void
// helmet itself, not the @fastify/helmet plugin: its headers are computed here once per
// configuration, not on each request (the plugin built a helmet instance and parsed the CSP
// directives on every request, 6% of an authenticated GET's CPU).
const helmet = helmetPackage as unknown as (options: HelmetOptions) => HelmetMiddleware

/** The headers helmet sets for `options`, captured from one run against a stand-in response. */
function headersOf(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {}
  const res = {
    setHeader: (name: string, value: unknown) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  }
  // helmet throws a bad option itself (since 8.1); its callback's error argument is kept for compatibility only.
  helmet(options)({}, res, () => {})
  return headers
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** helmet's options for this route (its CSP): replace the API's. */
    helmet?: HelmetOptions
  }
}

const SECURITY_HEADERS = Symbol('securityHeaders')

/**
 * Security headers on every response, as helmet computes them: nosniff, a CSP with
 * frame-ancestors, X-Frame-Options, Referrer-Policy… and `Cache-Control: no-store` on every answer
 * to a request that carried credentials, unless the route sets its own caching (it replaces this
 * one). A route's `config.helmet` replaces the API's options (as @fastify/helmet merged them). Each
 * route's headers are computed once, when it is declared; a request copies them in one sync hook.
 * Register before the routes.
 */
export async function registerSecurityHeaders(
  app: FastifyInstance,
  opts: { publicUrl: string; docsPrefix: string },
): Promise<void> {
  const base: HelmetOptions = {
    contentSecurityPolicy: { useDefaults: false, directives: API_CSP },
    // HSTS is for the TLS terminator in front to set (its domain, its subdomains): not this service's to decide.
    strictTransportSecurity: false,
    xFrameOptions: { action: 'deny' },
  }
  // A JSON answer is never a document a browser renders, navigates from or opens: the headers OWASP's
  // REST Security Cheat Sheet names (CSP, nosniff, X-Frame-Options; Cache-Control below) plus
  // Cross-Origin-Resource-Policy, which keeps other sites' pages from loading it. helmet's document
  // headers (COOP, Origin-Agent-Cluster, Referrer-Policy, X-DNS-Prefetch-Control, X-Download-Options,
  // X-Permitted-Cross-Domain-Policies, X-XSS-Protection) stay on the console's, the docs' and the
  // form pages; on an API answer they protect nothing and cost a header write each (issue 26.1).
  const api: HelmetOptions = {
    ...base,
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    referrerPolicy: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  }
  const docs = { contentSecurityPolicy: { useDefaults: false, directives: docsCsp(opts.publicUrl) } }
  const apiHeaders = Object.entries(headersOf(api))
  // Routes sharing a configuration object (the console's files) share its headers.
  const byConfig = new WeakMap<object, Array<[string, string]>>()
  app.addHook('onRoute', (route) => {
    const docsRoute = route.url === opts.docsPrefix || route.url.startsWith(`${opts.docsPrefix}/`)
    const own = docsRoute ? docs : route.config?.helmet
    if (own === undefined) return
    let headers = byConfig.get(own)
    if (headers === undefined) {
      headers = Object.entries(headersOf({ ...base, ...own }))
      byConfig.set(own, headers)
    }
    route.config = { ...route.config, [SECURITY_HEADERS]: headers } as typeof route.config
  })
  app.addHook('onRequest', (request, reply, done) => {
    const config = request.routeOptions.config as unknown as Record<symbol, Array<[string, string]> | undefined>
    const headers = config?.[SECURITY_HEADERS] ?? apiHeaders
    for (let i = 0; i < headers.length; i++) reply.header(headers[i]![0], headers[i]![1])
    if (request.headers.authorization !== undefined) reply.header('cache-control', 'no-store')
    done()
  })
}
