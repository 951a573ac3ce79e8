import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { completeDocument, type RouteFacts } from './openapi-document.js'
import { allErrorEntries } from '../kit/errors.js'
import type { TSchema } from '@sinclair/typebox'
import { ErrorBodySchema, UnauthorizedSchema } from './schemas.js'

/** The OpenAPI 3.1 document, generated from the route schemas, and an offline docs page. */
/** `shared`: schemas with an $id that routes of several plugins reference (Package, SiteRef…). */
export async function registerOpenApi(
  app: FastifyInstance,
  opts: { publicUrl: string; shared?: TSchema[]; extraSchemas?: Record<string, TSchema> },
): Promise<void> {
  for (const s of [ErrorBodySchema, UnauthorizedSchema, ...(opts.shared ?? [])]) app.addSchema(s)
  // Route options by method and OpenAPI path; hooks of inner scopes mark them later (idempotency).
  const routes = new Map<string, RouteOptions>()
  app.addHook('onRoute', (route) => {
    for (const m of Array.isArray(route.method) ? route.method : [route.method])
      routes.set(`${m.toLowerCase()} ${route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`, route)
  })
  const routeFacts = (method: string, path: string): RouteFacts | undefined => {
    const route = routes.get(`${method} ${path}`)
    return route && { idempotent: route.config?.idempotencyKey === true }
  }
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'mailroom',
        version: '0.1.0',
        description: describe(),
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'An access token from POST {auth}/api/v1/token, scope psapi.',
          },
          basicAuth: { type: 'http', scheme: 'basic', description: 'Client id and client secret.' },
          scimToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'A SCIM token of the subscription (/scim/v2 only).',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'mailroom_session',
            description:
              'A console session (POST /console/api/session). Writes also need the header X-CSRF-Token: the csrfToken of the session. Over HTTPS the cookie is named __Host-mailroom_session (Secure, Path=/, no Domain); over plain HTTP mailroom_session.',
          },
        },
      },
    },
    // The server URL is relative (the docs page works from any host name): the public URL's path.
    transformObject: (documentObject) =>
      completeDocument((documentObject as { openapiObject: Record<string, unknown> }).openapiObject, {
        serverPath: new URL(opts.publicUrl).pathname.replace(/\/$/, ''),
        routeFacts,
        extraSchemas: opts.extraSchemas,
      }) as never,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  })
  // swagger-ui serves its assets from the installed package: the page works without internet.
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true, tryItOutEnabled: true } })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}

function describe(): string {
  // By additionalCode: grouped by domain prefix, and the same whatever order the domains' modules load in.
  const rows = allErrorEntries()
    .sort((a, b) => (a.entry.additionalCode < b.entry.additionalCode ? -1 : 1))
    .map(
      ({ code, entry }) =>
        `| ${entry.additionalCode} | ${entry.status} | ${entry.errorCode} | ${code} | ${entry.message} |`,
    )
    .join('\n')
  return [
    'Package receiving: decode barcodes, receive packages with a full activity history, issue OAuth2 access tokens, and push signed webhooks.',
    '',
    'Errors of the receiving and webhook interfaces have the body `{errors: [{errorCode, errorDescription, additionalCode, additionalInfo, additionalParameters, correlationID}]}` (every field always present, an empty string where nothing applies); 401 has `{message}` and a `WWW-Authenticate` challenge; 403 when the token lacks the `psapi` scope.',
    'Every response carries `X-Correlation-ID` (yours when you send one of at most 128 characters `[A-Za-z0-9._:-]`).',
    '',
    '### Error catalogue',
    '| additionalCode | status | errorCode | name | meaning |',
    '|---|---|---|---|---|',
    rows,
  ].join('\n')
}
