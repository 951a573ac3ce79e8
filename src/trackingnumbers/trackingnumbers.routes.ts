import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../http/schemas.js'
import type { TrackingNumbersService } from './trackingnumbers.service.js'

export const trackingNumbersRoutes: FastifyPluginAsyncTypebox<{ trackingNumbers: TrackingNumbersService }> = async (app, { trackingNumbers }) => {
  app.post('/api/v1/trackingNumbers', {
    schema: {
      tags: ['packages'],
      security: [{ bearerAuth: [] }],
      summary: 'Generate a tracking number',
      description: 'For packages without one (internal mail, pouches). Format: `MR` + 12 Crockford base-32 characters + 1 check character (Luhn mod 32 over the 12), e.g. `MR6X0D3JZ4T1QKF`. Drawn from a database sequence: never the same number twice, across every process. The decode endpoint recognises these numbers.',
      response: { 200: Type.Object({ trackingNumber: Type.String({ pattern: '^MR[0-9A-HJKMNP-TV-Z]{13}$' }) }), ...errorResponses() },
    },
  }, async () => ({ trackingNumber: await trackingNumbers.generate() }))
}
