import { Type, type TSchema } from '@sinclair/typebox'
import { ERROR_SCHEMA } from '../model/scim-error.js'

/** A SCIM resource: its attributes are the provider's (RFC 7643), so any are accepted and returned. */
export const ScimResourceSchema = Type.Object(
  { schemas: Type.Optional(Type.Array(Type.String())), id: Type.Optional(Type.String()) },
  { additionalProperties: true, description: 'A SCIM resource (RFC 7643).' },
)

export const ScimListSchema = Type.Object(
  {
    schemas: Type.Array(Type.String()),
    totalResults: Type.Integer(),
    startIndex: Type.Integer(),
    itemsPerPage: Type.Integer(),
    Resources: Type.Array(ScimResourceSchema),
  },
  { description: 'A ListResponse (RFC 7644 §3.4.2).' },
)

export const ScimErrorSchema = Type.Object(
  {
    schemas: Type.Array(Type.Literal(ERROR_SCHEMA)),
    status: Type.String(),
    scimType: Type.Optional(Type.String()),
    detail: Type.String(),
  },
  { $id: 'ScimError', title: 'ScimError', description: 'A SCIM error (RFC 7644 §3.12).' },
)

export const ListQuerySchema = Type.Object(
  {
    filter: Type.Optional(
      Type.String({
        maxLength: 1000,
        description:
          'RFC 7644 §3.4.2.2. Users: userName, externalId, id, emails(.value), displayName, active; Groups: displayName, externalId, id, members[value eq "…"]. Operators eq, ne, co, sw, ew, pr, and, or, not.',
      }),
    ),
    startIndex: Type.Optional(
      Type.Integer({ maximum: 2147483647, description: '1-based; below 1 is read as 1; at most 2^31-1.' }),
    ),
    count: Type.Optional(
      Type.Integer({
        maximum: 2147483647,
        description:
          'Default 100; above 200 answers 200 (RFC 7644 §3.4.2.4: fewer, not an error); 0 answers only totalResults; at most 2^31-1.',
      }),
    ),
    attributes: Type.Optional(Type.String({ maxLength: 1000 })),
    excludedAttributes: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: true },
)

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) })

/** A response in SCIM's media type (RFC 7644 §3.1), as the OpenAPI document shows it. */
export const scimBody = (schema: TSchema, description = 'OK') => ({
  description,
  content: { 'application/scim+json': { schema } },
})

export const scimErrors = (...statuses: number[]) =>
  Object.fromEntries(
    [400, 401, 429, ...statuses].map((s) => [s, scimBody(ScimErrorSchema, 'A SCIM error (RFC 7644 §3.12).')]),
  )
