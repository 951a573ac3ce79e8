import { Type } from '@sinclair/typebox'

export const ScimTokenSchema = Type.Object({
  tokenId: Type.String(),
  name: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Optional(Type.String({ format: 'date-time', description: 'Within ten minutes.' })),
})

export const NewScimTokenSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '\\S',
      description: 'Who uses it: "Okta", "Entra ID".',
    }),
  },
  { additionalProperties: false },
)

export const CreatedScimTokenSchema = Type.Intersect([
  ScimTokenSchema,
  Type.Object({
    token: Type.String({ description: "The bearer token for the identity provider's SCIM app: shown this once only." }),
    scimUrl: Type.String({ description: 'The SCIM base URL to give the identity provider.' }),
  }),
])

export const ScimTokenListSchema = Type.Object({ tokens: Type.Array(ScimTokenSchema), scimUrl: Type.String() })
export const TokenIdParams = Type.Object({ tokenId: Type.String({ minLength: 1, maxLength: 64 }) })
