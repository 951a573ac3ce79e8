import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { LogController, type FastifyInstance } from 'fastify'
import type { AppContext } from './context.js'
import { bearerAuthHook } from '../access/index.js'
import { correlationId } from '../platform/http/correlation.js'
import { registerErrorHandling } from '../platform/http/error-handler.js'
import { clientErrorHandler, frameworkErrors, registerClosingAnswer } from '../platform/http/framework-errors.js'
import { registerMetrics } from '../platform/http/metrics.js'
import { registerOpenApi } from '../platform/http/openapi.js'
import { registerSecurityHeaders } from '../platform/http/security-headers.js'
import { lazyChildLogger, loggerOptions } from '../platform/http/logging.js'
import { validatorCompiler } from '../platform/http/validator.js'
import { cachedSerializers } from '../platform/http/serializers.js'
import { registerTenantGates, tenantGates } from '../platform/fairness/tenant-gates.js'
import { registerRefusalPacing } from '../platform/fairness/refusal-pacing.js'
import { registerRateLimits } from '../platform/fairness/rate-limit.js'
import { LocalWindows } from '../platform/fairness/local-windows.js'
import { registerIdempotency } from '../platform/idempotency/hooks.js'
import { PackageEventDataSchema } from '../packages/index.js'
import { PackageRecordSchema } from '../packages/index.js'
import { SiteRefSchema } from '../sites/index.js'
import { DecodeResponseSchema } from '../scan/index.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../platform/http/json-depth.js'
import { registerBodyLimits } from '../platform/http/body-limits.js'
import { bodyLimits } from './body-limits.js'
import { AppError } from '../platform/kit/errors.js'
import cookie from '@fastify/cookie'
import { registerAccess } from '../access/index.js'
import { ScimErrorSchema, scimRoutes } from '../directory/index.js'
import { routePlugins, SCIM_PREFIX } from './routes.js'

export interface BuildAppOptions {
  /** Pino options, or false for silence (tests). */
  logger?: boolean | Record<string, unknown>
  isShuttingDown?: () => boolean
}

function trustHops(hops: number) {
  return (_address: string, hop: number) => hop < hops
}

/** Builds the whole service; never listens (tests call app.inject, main.ts calls listen). */
export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config } = ctx
  const app = Fastify({
    // Routes, ids and query keys only: no query values, no credentials (http/logging.ts).
    logger: loggerOptions(options.logger ?? { level: config.logLevel }),
    // Each request's logger is made on its first line written (http/logging.ts).
    childLoggerFactory: lazyChildLogger,
    genReqId: correlationId,
    logController: new LogController({ requestIdLogLabel: 'correlationID' }),
    bodyLimit: config.bodyLimitBytes,
    // A hop count means: believe that many proxies in front of us (proxy-addr's hop semantics).
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    // registerClosingAnswer answers those 503s, in the error model.
    return503OnClosing: false,
    // Errors found before routing answer in the error model too (CONTRACT §1).
    frameworkErrors,
    clientErrorHandler,
    // Slow clients (issue 14.5): Node's defaults let a client trickling 1 byte/s hold a socket for
    // 5 minutes (requestTimeout) and an idle kept-alive one for 72 s. Deadlines are checked every second.
    connectionTimeout: config.http.idleTimeoutMs,
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    http: { headersTimeout: config.http.headersTimeoutMs, connectionsCheckingInterval: 1_000 },
    // Response serializers compiled once per schema per process (platform/http/serializers.ts).
    schemaController: { compilersFactory: { buildSerializer: cachedSerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>()

  // Each route's body limit, and at most a few large bodies per subscription at once (app/body-limits.ts).
  registerBodyLimits(
    app,
    bodyLimits(config.bodyLimitBytes),
    (request) => request.tenant?.subId,
    () => ctx.clock.now().getTime(),
  )
  // Every problem of a request at once, one errors[] item per field (CONTRACT §1); bodies uncoerced.
  app.setValidatorCompiler(validatorCompiler)
  // JSON only (the token endpoint adds forms): any other content type is a 415, as CONTRACT §1 says.
  app.removeContentTypeParser('text/plain')
  // An empty JSON body is no body, as when no content type is sent: routes whose body is optional
  // (archive) take it, the others answer "body is required" naming the body, like any missing field.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined)
    if (nestsDeeperThan(body as string, MAX_JSON_DEPTH))
      return done(
        new AppError('MALFORMED_BODY', { description: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.` }),
        undefined,
      )
    return parseJson(request, body as string, done)
  })
  app.decorateRequest('tenant', null as never)
  app.decorateRequest('user', null)
  // Console sessions travel in a cookie (users/session-cookie.ts); parsed for every route, signed by none (the value is opaque and random).
  await app.register(cookie)
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-correlation-id', request.id)
    done()
  })
  registerErrorHandling(app)
  // The image store's connections (an S3 client's sockets) go with the app that served them.
  app.addHook('onClose', async () => ctx.receiving.images.close())
  registerClosingAnswer(app)
  const metrics = registerMetrics(app)
  await registerSecurityHeaders(app, { publicUrl: config.publicUrl, docsPrefix: '/docs' })
  // Every 429 waits before it is sent: a client that ignores Retry-After cannot flood the event loop with refusals.
  registerRefusalPacing(app, config.limits.refusalDelayMs, metrics)
  // Rate limits shared by every process on PostgreSQL (windows in the database), in memory on PGlite.
  const sharedWindows =
    config.limits.rate.store === 'database' ||
    (config.limits.rate.store === 'auto' && ctx.database.engine === 'postgres')
  const windows = sharedWindows ? new LocalWindows(ctx.db, ctx.clock, config.limits.rate) : undefined
  // The counts of the last interval go to the database before it closes.
  if (windows) app.addHook('onClose', () => windows.close())
  await registerRateLimits(app, config.limits.rate, windows)
  await registerOpenApi(app, {
    publicUrl: config.publicUrl,
    shared: [SiteRefSchema, PackageRecordSchema, DecodeResponseSchema, ScimErrorSchema],
    // The data of webhook notifications: no route returns it, so the generator does not see it.
    extraSchemas: { PackageEventData: PackageEventDataSchema },
  })
  const routes = routePlugins(ctx, options.isShuttingDown ?? (() => false))
  for (const mount of routes.public) await mount(app)

  const bearer = bearerAuthHook({
    tokens: ctx.tokens,
    clients: ctx.clients,
    sessions: ctx.sessions,
    publicUrl: config.publicUrl,
  })
  await app.register(
    async (receiving) => {
      receiving.addHook('onRequest', bearer)
      // Clerks are refused the set-up routes (users/access.ts), after authentication said who they are.
      registerAccess(receiving)
      // Idempotency-Key on every POST of the interface (CONTRACT §5), companions included.
      registerIdempotency(receiving, { db: ctx.db, clock: ctx.clock, sealKey: ctx.secrets.idempotencyKey })
      // Searches, exports and bulk operations bounded per subscription (issue 14.2).
      registerTenantGates(receiving, tenantGates(config.limits, ctx.presence), metrics)
      for (const mount of routes.receiving) await mount(receiving)
    },
    { prefix: config.prefixes.receiving },
  )

  const webhookAuth = bearerAuthHook({
    tokens: ctx.tokens,
    clients: ctx.clients,
    basic: { limiter: ctx.tokenLimiter },
    sessions: ctx.sessions,
    publicUrl: config.publicUrl,
  })
  for (const [variant, prefix] of [
    ['tracking', config.prefixes.trackingWebhooks],
    ['locker', config.prefixes.lockerWebhooks],
  ] as const) {
    await app.register(
      async (webhooks) => {
        webhooks.addHook('onRequest', webhookAuth)
        registerAccess(webhooks)
        // CONTRACT §5: Idempotency-Key on any POST, the webhook interface's included.
        registerIdempotency(webhooks, { db: ctx.db, clock: ctx.clock, sealKey: ctx.secrets.idempotencyKey })
        for (const mount of routes.webhooks(variant)) await mount(webhooks)
      },
      { prefix },
    )
  }

  // SCIM 2.0 for identity providers (issue 28): its own bearer tokens, content type and error body.
  await app.register(scimRoutes, {
    prefix: SCIM_PREFIX,
    scim: ctx.directory.scim,
    tokens: ctx.directory.tokens,
    publicUrl: config.publicUrl,
  })

  // The console's own API (issue 18): sign-in and sign-out. Everything else it asks of the public API.
  await app.register(
    async (consoleApi) => {
      for (const mount of routes.console) await mount(consoleApi)
    },
    { prefix: '/console/api' },
  )
  return app
}
