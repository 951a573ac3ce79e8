import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import type { SsoService } from '../sso-service.js'
import { SsoSettingsInputSchema, SsoSettingsSchema } from './sso-schemas.js'

const tags = ['users']
const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { sessionCookie: [] }]

/**
 * The subscription's single sign-on settings (issue 28.5): admin only (console-access.ts), reads
 * included, since they name the identity provider and its client. docs/sso.md walks through them.
 */
export const ssoAdminRoutes: FastifyPluginAsyncTypebox<{ sso: SsoService }> = async (app, { sso }) => {
  app.get(
    '/api/v1/sso',
    {
      schema: {
        tags,
        security,
        summary: 'The single sign-on settings of the subscription',
        description:
          'Defaults (single sign-on off) until an admin saves some. `redirectUri` is what to register with the identity provider. The client secret is shown masked.',
        response: { 200: SsoSettingsSchema, ...errorResponses() },
      },
    },
    async (request, reply) =>
      reply.header('cache-control', 'no-store').send(await sso.getSettings(request.tenant.subId)),
  )

  app.put(
    '/api/v1/sso',
    {
      schema: {
        tags,
        security,
        summary: 'Set the single sign-on settings of the subscription',
        description: [
          'Staff sign in to the console with the subscription’s OpenID Connect provider (authorization code with PKCE). The settings replace the stored ones; omitted optional fields take their defaults, except `clientSecret` (absent keeps the stored one).',
          'While `enabled`, `issuer`, `clientId` and at least one of `emailDomains` are required. `passwordSignIn: false` needs `enabled`. Each problem is a 400 naming its field. A new domain is pending (`domainClaims`) until the installation’s operator grants it (`mailroom sso grant DOMAIN SUB_ID`): whether another subscription claims it is never said.',
          'The provider is not called here: a wrong issuer or client shows at the first sign-in (the sign-in page says it failed; the log says why).',
        ].join('\n\n'),
        body: SsoSettingsInputSchema,
        response: { 200: SsoSettingsSchema, ...errorResponses(400, 415) },
      },
    },
    async (request) => sso.putSettings(request.tenant.subId, request.body),
  )
}
