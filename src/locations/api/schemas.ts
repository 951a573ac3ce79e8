import { Type, type Static } from '@sinclair/typebox'
import { SkipSchema } from '../../platform/http/schemas.js'

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })
const Name = Type.String({ maxLength: 100, pattern: '\\S', description: 'Unique per subscription, ignoring case.' })
const Timezone = Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone, e.g. America/New_York.' })

export const AddressSchema = Type.Object(
  {
    line1: Type.String({ maxLength: 200, pattern: '\\S' }),
    line2: Type.Optional(Type.String({ maxLength: 200 })),
    city: Type.String({ maxLength: 100, pattern: '\\S' }),
    state: Type.String({ maxLength: 100, description: 'State, province or region; "" where the country has none.' }),
    postalCode: Type.String({ minLength: 1, maxLength: 20, pattern: '^[A-Za-z0-9][A-Za-z0-9 -]*$' }),
    country: Type.String({
      pattern: '^[A-Za-z]{2}$',
      description: 'ISO 3166-1 alpha-2, e.g. US; stored in upper case.',
    }),
  },
  { additionalProperties: false },
)
export type Address = Static<typeof AddressSchema>

export const LocationSchema = Type.Object(
  {
    locationId: Type.String(),
    name: Type.String(),
    address: Type.Object({
      line1: Type.String(),
      line2: Type.Optional(Type.String()),
      city: Type.String(),
      state: Type.String(),
      postalCode: Type.String(),
      country: Type.String(),
    }),
    timezone: Type.String(),
    carriers: Type.Array(Type.String(), {
      description: 'Ids of the carriers enabled here; empty means the whole catalogue.',
    }),
  },
  { $id: 'Location', title: 'Location' },
)
export type Location = Static<typeof LocationSchema>

export const CreateLocationSchema = Type.Object(
  { name: Name, address: AddressSchema, timezone: Timezone },
  { additionalProperties: false },
)
export type CreateLocation = Static<typeof CreateLocationSchema>

export const UpdateLocationSchema = Type.Object(
  {
    name: Type.Optional(Name),
    address: Type.Optional(AddressSchema),
    timezone: Type.Optional(Timezone),
  },
  { additionalProperties: false },
)
export type UpdateLocation = Static<typeof UpdateLocationSchema>

export const ListLocationsQuerySchema = Type.Object(
  {
    skip: SkipSchema,
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 25 }),
  },
  { additionalProperties: false },
)
export type ListLocationsQuery = Static<typeof ListLocationsQuerySchema>

export const LocationCarrierIdsSchema = Type.Array(Id, {
  maxItems: 200,
  description: "Carrier ids (built-in or the subscription's own); replaces the list. [] means the whole catalogue.",
})

export const LocationListSchema = Type.Object({ locations: Type.Array(LocationSchema), totalCount: Type.Integer() })
export const LocationIdParams = Type.Object({ locationId: Id })
