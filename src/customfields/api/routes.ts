import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import {
  CreateCustomFieldSchema,
  CustomFieldIdParams,
  CustomFieldListSchema,
  CustomFieldSchema,
  ListCustomFieldsQuerySchema,
  UpdateCustomFieldSchema,
} from './schemas.js'
import type { CustomFieldsService } from '../service.js'
import { outcomeOf } from '../../platform/idempotency/hooks.js'

const tags = ['custom fields']
const security = [{ bearerAuth: [] }]

const VALUE_RULES = [
  'Package values (`package.customFields: [{customFieldId, value}]`) are checked against the definition and stored as strings:',
  'TEXT at most 1000 characters; NUMBER a decimal (`42`, `-3.5`, or a JSON number); DATE `YYYY-MM-DD` or an ISO 8601 timestamp with a zone;',
  "BOOLEAN `true`/`false` (JSON booleans or strings); LIST one of the options, ignoring case (stored in the option's spelling).",
  'A value `""` removes the field from the package. INACTIVE fields accept no new values but keep the stored ones; ACTIVE required fields must have a value.',
].join(' ')

/** CONTRACT §5: definitions of the extra fields a subscription records on its packages. */
export const customFieldsRoutes: FastifyPluginAsyncTypebox<{ customFields: CustomFieldsService }> = async (
  app,
  { customFields },
) => {
  app.post(
    '/api/v1/customfields',
    {
      schema: {
        tags,
        security,
        summary: 'Create a custom field definition',
        description: `Names are unique per subscription ignoring case (409 already_exists). LIST fields need \`options\` (at least one, unique ignoring case); other types take none.\n\n${VALUE_RULES}`,
        body: CreateCustomFieldSchema,
        response: { 201: CustomFieldSchema, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await customFields.createCustomField(request.tenant.subId, request.body, outcomeOf(request, reply, 201))),
  )

  app.get(
    '/api/v1/customfields',
    {
      schema: {
        tags,
        security,
        summary: 'List custom field definitions',
        description: 'Deleted definitions are never listed. Sorted by name (case-insensitive), then id.',
        querystring: ListCustomFieldsQuerySchema,
        response: { 200: CustomFieldListSchema, ...errorResponses(400) },
      },
    },
    async (request) => customFields.listCustomFields(request.tenant.subId, request.query),
  )

  app.get(
    '/api/v1/customfields/:customFieldId',
    {
      schema: {
        tags,
        security,
        summary: 'Get a custom field definition',
        description: 'A deleted definition, or one of another subscription, is 404.',
        params: CustomFieldIdParams,
        response: { 200: CustomFieldSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => customFields.getCustomField(request.tenant.subId, request.params.customFieldId),
  )

  app.put(
    '/api/v1/customfields/:customFieldId',
    {
      schema: {
        tags,
        security,
        summary: 'Update a custom field definition',
        description:
          'Merges: fields given replace, fields absent stay. Changing `dataType` away from LIST drops the options. Values already stored on packages are kept as they are; the new rules apply to values written from now on.',
        params: CustomFieldIdParams,
        body: UpdateCustomFieldSchema,
        response: { 200: CustomFieldSchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => customFields.updateCustomField(request.tenant.subId, request.params.customFieldId, request.body),
  )

  app.delete(
    '/api/v1/customfields/:customFieldId',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a custom field definition',
        description:
          'Soft delete: packages keep the values they hold, the definition is 404 from now on, and its name can be used again.',
        params: CustomFieldIdParams,
        response: { 200: Type.Object({}), ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      await customFields.deleteCustomField(request.tenant.subId, request.params.customFieldId)
      return {}
    },
  )
}
