import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import {
  ApiClientSchema,
  ClientIdParams,
  CreateApiClientSchema,
  CreatedApiClientSchema,
  NewSecretSchema,
  UpdateApiClientSchema,
} from './client-schemas.js'
import type { ClientsService } from '../clients-service.js'

const tags = ['clients']
const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { sessionCookie: [] }]

/**
 * The API clients of the caller's subscription (issue 18, the console's admin page). Admin only
 * (users/access.ts): an API client counts as an admin of its subscription, as on the users API, a
 * clerk gets 403. Another subscription's client is not found (404), never forbidden.
 */
export const clientsRoutes: FastifyPluginAsyncTypebox<{ clients: ClientsService }> = async (app, { clients }) => {
  app.get(
    '/api/v1/clients',
    {
      schema: {
        tags,
        security,
        summary: 'List the API clients of the subscription',
        description: 'Oldest first. Secrets are never shown again after their creation.',
        response: { 200: Type.Object({ clients: Type.Array(ApiClientSchema) }), ...errorResponses() },
      },
    },
    async (request) => ({ clients: await clients.listClientsOf(request.tenant.subId) }),
  )

  app.post(
    '/api/v1/clients',
    {
      schema: {
        tags,
        security,
        summary: 'Create an API client',
        description:
          'A client of the caller’s subscription, active at once. `clientSecret` is in this answer only: with the client id it gets access tokens at `{auth_url}/api/v1/token`.',
        body: CreateApiClientSchema,
        response: { 201: CreatedApiClientSchema, ...errorResponses(400, 415) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await clients.createClientIn(request.tenant.subId, request.body.name)),
  )

  app.patch(
    '/api/v1/clients/:clientId',
    {
      schema: {
        tags,
        security,
        summary: 'Rename, disable or re-enable an API client',
        description:
          '`status: "disabled"` refuses the client’s secret and every token it holds, on every process within a second. A client calling with its own token may not disable itself (400 naming `status`).',
        params: ClientIdParams,
        body: UpdateApiClientSchema,
        response: { 200: ApiClientSchema, ...errorResponses(400, 404, 415) },
      },
    },
    async (request) =>
      clients.updateClientOf(
        request.tenant.subId,
        request.params.clientId,
        request.body,
        // A console user acts as a person; only a token names the client making the call.
        request.user ? undefined : request.tenant.clientId,
      ),
  )

  app.post(
    '/api/v1/clients/:clientId/secret',
    {
      schema: {
        tags,
        security,
        summary: 'Give an API client a new secret',
        description:
          'The old secret stops working at once, and so do the access tokens issued with it (on every process within a second): the client must get a new token with the new secret. `clientSecret` is in this answer only.',
        params: ClientIdParams,
        response: { 200: NewSecretSchema, ...errorResponses(404) },
      },
    },
    async (request) => clients.newSecretOf(request.tenant.subId, request.params.clientId),
  )
}
