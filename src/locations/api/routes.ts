import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import {
  CreateLocationSchema,
  ListLocationsQuerySchema,
  LocationCarrierIdsSchema,
  LocationIdParams,
  LocationListSchema,
  LocationSchema,
  UpdateLocationSchema,
} from './schemas.js'
import type { LocationsService } from '../service.js'
import { outcomeOf } from '../../platform/idempotency/hooks.js'

const tags = ['locations']
const security = [{ bearerAuth: [] }]

/** CONTRACT §5: the physical addresses a subscription receives at; inbound sites hang below them. */
export const locationsRoutes: FastifyPluginAsyncTypebox<{ locations: LocationsService }> = async (
  app,
  { locations },
) => {
  app.post(
    '/api/v1/locations',
    {
      schema: {
        tags,
        security,
        summary: 'Create a location',
        description: [
          'Names are unique per subscription ignoring case (409 already_exists). `timezone` must be an IANA zone known to the server (e.g. `Europe/London`; offsets such as `+05:30` are refused); `address.country` an ISO 3166-1 alpha-2 code (stored upper case).',
          'A new location has no carriers configured (`carriers: []`), which offers the whole catalogue; set the list with `PUT /api/v1/locations/{locationId}/carriers`.',
          "A package's `locationZip` is the `postalCode` of its site's location.",
        ].join('\n\n'),
        body: CreateLocationSchema,
        response: { 201: LocationSchema, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await locations.createLocation(request.tenant.subId, request.body, outcomeOf(request, reply, 201))),
  )

  app.get(
    '/api/v1/locations',
    {
      schema: {
        tags,
        security,
        summary: 'List locations',
        description: 'Deleted locations are never listed. Sorted by name (case-insensitive), then id.',
        querystring: ListLocationsQuerySchema,
        response: { 200: LocationListSchema, ...errorResponses(400) },
      },
    },
    async (request) => locations.listLocations(request.tenant.subId, request.query),
  )

  app.get(
    '/api/v1/locations/:locationId',
    {
      schema: {
        tags,
        security,
        summary: 'Get a location',
        description: 'A deleted location, or one of another subscription, is 404.',
        params: LocationIdParams,
        response: { 200: LocationSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => locations.getLocation(request.tenant.subId, request.params.locationId),
  )

  app.put(
    '/api/v1/locations/:locationId',
    {
      schema: {
        tags,
        security,
        summary: 'Update a location',
        description:
          'Merges: `name`, `address` (replaced as a whole) and `timezone` given replace, absent stay. The carrier list has its own endpoint.',
        params: LocationIdParams,
        body: UpdateLocationSchema,
        response: { 200: LocationSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => locations.updateLocation(request.tenant.subId, request.params.locationId, request.body),
  )

  app.put(
    '/api/v1/locations/:locationId/carriers',
    {
      config: { tenantGate: 'bulkOperations' },
      schema: {
        tags,
        security,
        summary: 'Set the carriers enabled at a location',
        description:
          "Body: carrier ids (built-in or the subscription's own couriers; 400 naming `[i]` for any other). Replaces the list; duplicates are dropped. `[]` goes back to offering the whole catalogue. Returns the location.",
        params: LocationIdParams,
        body: LocationCarrierIdsSchema,
        response: { 200: LocationSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => locations.setCarriers(request.tenant.subId, request.params.locationId, request.body),
  )

  app.delete(
    '/api/v1/locations/:locationId',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a location',
        description:
          'Refused with 409 (validation_error, LOC-4091) while live inbound sites are placed at the location. Otherwise a soft delete: packages at its (deleted) sites keep their history, the location is 404 from now on, and its name can be used again.',
        params: LocationIdParams,
        response: { 200: Type.Object({}), ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => {
      await locations.deleteLocation(request.tenant.subId, request.params.locationId)
      return {}
    },
  )
}
