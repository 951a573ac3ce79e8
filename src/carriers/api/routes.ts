import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import {
  CarriersAtLocationsQuerySchema,
  CatalogCarrierSchema,
  CatalogListSchema,
  CatalogQuerySchema,
  CourierParamsSchema,
  CreateCourierSchema,
  LocationCarrierListSchema,
  LocationIdListSchema,
} from './schemas.js'
import type { CarriersService } from '../service.js'
import { outcomeOf } from '../../platform/idempotency/hooks.js'

const tags = ['carriers']
const security = [{ bearerAuth: [] }]

/** CONTRACT §3 (carriers at locations) and §5 (the catalogue). */
export const carriersRoutes: FastifyPluginAsyncTypebox<{ carriers: CarriersService }> = async (app, { carriers }) => {
  app.post(
    '/api/v1/carriers',
    {
      config: { tenantGate: 'bulkOperations' },
      schema: {
        tags,
        security,
        summary: 'Carriers enabled at locations',
        description: [
          'Body: location ids, e.g. `["locA", "locB,locC"]`. Every id must be a location of the subscription (400 naming the element, `[i]`, otherwise).',
          "Returns the union of the carriers enabled at those locations (`PUT /api/v1/locations/{locationId}/carriers`). A location with no carriers configured offers the whole catalogue: the built-in carriers plus the subscription's own couriers.",
          'Sorted by name (case-insensitive), then paged with `page` (from 1) and `size`; `totalCount` counts all matches. Answers 201, as the contract fixes.',
        ].join('\n\n'),
        querystring: CarriersAtLocationsQuerySchema,
        body: LocationIdListSchema,
        response: { 201: LocationCarrierListSchema, ...errorResponses(400) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await carriers.carriersAtLocations(request.tenant.subId, request.body, request.query)),
  )

  app.get(
    '/api/v1/carriers/catalog',
    {
      schema: {
        tags,
        security,
        summary: 'The carrier catalogue',
        description:
          "The built-in carriers (UPS, FedEx, USPS, DHL, Amazon Logistics, OnTrac, Canada Post, Purolator, Royal Mail, …; `builtIn: true`) and the subscription's own couriers (`builtIn: false`). Sorted by name (case-insensitive), then id; paged with `skip` and `limit`.",
        querystring: CatalogQuerySchema,
        response: { 200: CatalogListSchema, ...errorResponses(400) },
      },
    },
    async (request) => carriers.listCatalog(request.tenant.subId, request.query),
  )

  app.post(
    '/api/v1/carriers/catalog',
    {
      schema: {
        tags,
        security,
        summary: "Add a courier to the subscription's catalogue",
        description:
          "A subscription-local carrier (a bike courier, an internal mail run). Its name must differ, ignoring case, from every built-in carrier and the subscription's other couriers (409 already_exists). Only this subscription sees it.",
        body: CreateCourierSchema,
        response: { 201: CatalogCarrierSchema, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await carriers.addCourier(request.tenant.subId, request.body, outcomeOf(request, reply, 201))),
  )

  app.put(
    '/api/v1/carriers/catalog/:carrierId',
    {
      schema: {
        tags,
        security,
        summary: "Change one of the subscription's couriers",
        description:
          "Replaces its name, services and barcodeAware (omitted: none, false). The name must stay unique ignoring case (409 already_exists). Built-in carriers are shared and cannot be changed (409 `CAR-4091`); another subscription's courier is not found (404). Packages show the new name from then on.",
        params: CourierParamsSchema,
        body: CreateCourierSchema,
        response: { 200: CatalogCarrierSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => carriers.updateCourier(request.tenant.subId, request.params.carrierId, request.body),
  )

  app.delete(
    '/api/v1/carriers/catalog/:carrierId',
    {
      schema: {
        tags,
        security,
        summary: "Delete one of the subscription's couriers",
        description:
          "Deletes it and takes it out of every location's carrier list (a list left empty offers the whole catalogue again). Refused (409 `CAR-4092`) while a package names it: its history keeps the courier, so rename it instead. Built-in carriers cannot be deleted (409 `CAR-4091`).",
        params: CourierParamsSchema,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(400, 404, 409) },
      },
    },
    async (request, reply) => {
      await carriers.deleteCourier(request.tenant.subId, request.params.carrierId)
      return reply.code(204).send(null)
    },
  )
}
