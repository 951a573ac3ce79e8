import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'

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

/**
 * Security headers on every response (@fastify/helmet): nosniff, a CSP with frame-ancestors,
 * X-Frame-Options, Referrer-Policy… and `Cache-Control: no-store` on every answer to a request
 * that carried credentials, unless the route chose its own caching. Register before the routes.
 */
export async function registerSecurityHeaders(
  app: FastifyInstance,
  opts: { publicUrl: string; docsPrefix: string },
): Promise<void> {
  const docs = { contentSecurityPolicy: { useDefaults: false, directives: docsCsp(opts.publicUrl) } }
  app.addHook('onRoute', (route) => {
    if (route.url === opts.docsPrefix || route.url.startsWith(`${opts.docsPrefix}/`))
      route.config = { ...route.config, helmet: docs } as typeof route.config
  })
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: API_CSP },
    // HSTS is for the TLS terminator in front to set (its domain, its subdomains): not this service's to decide.
    strictTransportSecurity: false,
    xFrameOptions: { action: 'deny' },
  })
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.headers.authorization !== undefined && !reply.hasHeader('cache-control'))
      reply.header('cache-control', 'no-store')
    return payload
  })
}
