import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsync } from 'fastify'
import { errorResponses } from '../../platform/http/schemas.js'

const SessionSchema = Type.Object({
  clientId: Type.String(),
  subId: Type.String(),
  scope: Type.String(),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'When the access token expires; null for HTTP Basic (webhook interface), which is checked on every request.',
  }),
})

/** `GET /api/v1/session`: who the token says the caller is; integrators use it to check their setup. */
export const sessionRoutes: FastifyPluginAsync<{ tag?: string }> = async (app, opts) => {
  app.get(
    '/api/v1/session',
    {
      schema: {
        tags: [opts.tag ?? 'receiving'],
        summary: 'The caller as the access token identifies it',
        security: [{ bearerAuth: [] }],
        response: { 200: SessionSchema, ...errorResponses() },
      },
    },
    async (request) => ({
      clientId: request.tenant.clientId,
      subId: request.tenant.subId,
      scope: request.tenant.scope,
      // HTTP Basic has no expiry (auth-hook.ts sets the largest date, which RFC 3339 cannot write).
      expiresAt: request.tenant.tokenId === '' ? null : request.tenant.expiresAt.toISOString(),
    }),
  )
}
