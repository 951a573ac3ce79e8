import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import type { Departures } from '../departures.js'

export const DeparturesSchema = Type.Object({
  departures: Type.Array(
    Type.Object({
      contactId: Type.String(),
      name: Type.String(),
      reason: Type.Unsafe<'deactivated' | 'moved-out'>({ type: 'string', enum: ['deactivated', 'moved-out'] }),
      moveOutDate: Type.Optional(Type.String({ description: 'YYYY-MM-DD.' })),
      notedAt: Type.String({ format: 'date-time', description: 'When the departure was flagged.' }),
      packages: Type.Array(
        Type.Object({
          packageId: Type.String(),
          trackingNumber: Type.String(),
          pickupCode: Type.Optional(
            Type.String({ description: 'Still valid: the recipient (or a delegate) may collect.' }),
          ),
        }),
      ),
    }),
  ),
})

/** The desk's exceptions: recipients who left while parcels waited for them. */
export const departuresRoutes: FastifyPluginAsyncTypebox<{ departures: Departures }> = async (app, { departures }) => {
  app.get(
    '/api/v1/directory/departures',
    {
      schema: {
        tags: ['directory'],
        security: [{ bearerAuth: [] }],
        summary: 'Departed recipients with waiting parcels',
        description:
          'Recipients deactivated (SCIM, LDAP, a roster, a clerk) or past their move-out date while parcels still wait for them, newest departure first (the last 200 departures looked at). Each parcel got a `RecipientDeparted` event when the departure was noted (within a minute). A recipient leaves this list once their parcels are handed over or returned; their pickup code keeps working until then.',
        response: { 200: DeparturesSchema, ...errorResponses() },
      },
    },
    async (request) => ({ departures: await departures.listDepartures(request.tenant.subId) }),
  )
}
