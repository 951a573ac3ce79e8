import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import {
  ContactIdParams,
  ContactListSchema,
  ContactSchema,
  CreateContactSchema,
  ListContactsQuerySchema,
  UpdateContactSchema,
} from './schemas.js'
import type { ContactsService } from '../service.js'
import { rosterRoutes } from './roster-routes.js'
import { outcomeOf } from '../../platform/idempotency/hooks.js'

const tags = ['contacts']
const security = [{ bearerAuth: [] }]

/** CONTRACT §5: senders and receivers of packages, per subscription. */
export const contactsRoutes: FastifyPluginAsyncTypebox<{ contacts: ContactsService }> = async (app, { contacts }) => {
  await rosterRoutes(app, { contacts })
  app.post(
    '/api/v1/contacts',
    {
      schema: {
        tags,
        security,
        summary: 'Create a contact',
        description: [
          'Text fields are trimmed; an empty optional field is the same as an absent one. `email` must be one plain address (RFC 5322 addr-spec `local@domain.tld`: no display name, angle brackets, comments or list), else 400 naming `email`.',
          '`location` and `mailStopLocation` must be live inbound sites of the subscription (400 naming `location.inboundSiteId` / `mailStopLocation.inboundSiteId` otherwise).',
          'Names are not unique: two people may share one. Decoding a label links its ship-to name to a RECEIVER or ALL contact whose name matches ignoring case, accents, punctuation and spacing.',
        ].join('\n\n'),
        body: CreateContactSchema,
        response: { 201: ContactSchema, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await contacts.createContact(request.tenant.subId, request.body, outcomeOf(request, reply, 201))),
  )

  app.get(
    '/api/v1/contacts',
    {
      schema: {
        tags,
        security,
        summary: 'List and search contacts',
        description: [
          '`query` is a typeahead: contacts whose name, email or personalId starts with it, ignoring case.',
          '`contactType=SENDER` returns SENDER and ALL contacts, `RECEIVER` returns RECEIVER and ALL (an ALL contact can be either), `ALL` only contacts of type ALL.',
          'Deleted contacts are never listed. Sorted by name (case-insensitive), then id.',
        ].join('\n\n'),
        querystring: ListContactsQuerySchema,
        response: { 200: ContactListSchema, ...errorResponses(400) },
      },
    },
    async (request) => contacts.listContacts(request.tenant.subId, request.query),
  )

  app.get(
    '/api/v1/contacts/:contactId',
    {
      schema: {
        tags,
        security,
        summary: 'Get a contact',
        description: 'A deleted contact, or one of another subscription, is 404.',
        params: ContactIdParams,
        response: { 200: ContactSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => contacts.getContact(request.tenant.subId, request.params.contactId),
  )

  app.put(
    '/api/v1/contacts/:contactId',
    {
      schema: {
        tags,
        security,
        summary: 'Update a contact',
        description:
          'Merges: a field given replaces the stored one, a field absent stays, `null` or "" clears an optional field. Returns the updated contact. Site links given are checked as on create.',
        params: ContactIdParams,
        body: UpdateContactSchema,
        response: { 200: ContactSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => contacts.updateContact(request.tenant.subId, request.params.contactId, request.body),
  )

  app.delete(
    '/api/v1/contacts/:contactId',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a contact',
        description:
          'Soft delete: packages that name the contact keep showing it in their history, but the contact is 404 here from now on and is no longer listed, matched or accepted on new packages.',
        params: ContactIdParams,
        response: { 200: Type.Object({}), ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      await contacts.deleteContact(request.tenant.subId, request.params.contactId)
      return {}
    },
  )
}
