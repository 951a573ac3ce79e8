import { Type, type Static } from '@sinclair/typebox'
import { SkipSchema, PageSchema } from '../../platform/http/schemas.js'

const Services = Type.Array(Type.String({ maxLength: 100, pattern: '\\S' }), {
  maxItems: 50,
  description: 'Service names, unique ignoring case.',
})

export const CatalogCarrierSchema = Type.Object(
  {
    carrierId: Type.String(),
    name: Type.String(),
    scac: Type.Optional(Type.String({ description: 'Standard Carrier Alpha Code, when the carrier has one.' })),
    barcodeAware: Type.Boolean({ description: "The decoder recognises this carrier's barcodes." }),
    services: Type.Array(Type.String()),
    builtIn: Type.Boolean({
      description:
        'true: part of the built-in catalogue, shared by every subscription; false: a courier of this subscription.',
    }),
  },
  { $id: 'CatalogCarrier', title: 'CatalogCarrier' },
)
export type CatalogCarrier = Static<typeof CatalogCarrierSchema>

/** CONTRACT §3 `POST /api/v1/carriers` item: exactly these fields. */
export const LocationCarrierSchema = Type.Object(
  {
    carrierId: Type.String(),
    name: Type.String(),
    barcodeAware: Type.Boolean(),
    services: Type.Array(Type.String()),
  },
  { $id: 'LocationCarrier', title: 'LocationCarrier' },
)
export type LocationCarrier = Static<typeof LocationCarrierSchema>

export const CreateCourierSchema = Type.Object(
  {
    name: Type.String({
      maxLength: 100,
      pattern: '\\S',
      description: "Unique among the built-in carriers and the subscription's own, ignoring case.",
    }),
    barcodeAware: Type.Optional(
      Type.Boolean({ description: "Default false: the decoder does not know a local courier's barcodes." }),
    ),
    services: Type.Optional(Services),
  },
  { additionalProperties: false },
)
export type CreateCourier = Static<typeof CreateCourierSchema>

export const CourierParamsSchema = Type.Object({
  carrierId: Type.String({ maxLength: 100, description: "The id of one of the subscription's couriers (car_…)." }),
})

export const CatalogQuerySchema = Type.Object(
  {
    barcodeAware: Type.Optional(Type.Boolean()),
    skip: SkipSchema,
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 25 }),
  },
  { additionalProperties: false },
)
export type CatalogQuery = Static<typeof CatalogQuerySchema>

export const CarriersAtLocationsQuerySchema = Type.Object(
  {
    size: Type.Integer({ minimum: 1, maximum: 200, default: 25 }),
    page: PageSchema,
    barcodeAware: Type.Optional(Type.Boolean({ description: 'Only carriers whose barcodeAware is this value.' })),
  },
  { additionalProperties: false },
)
export type CarriersAtLocationsQuery = Static<typeof CarriersAtLocationsQuerySchema>

export const LocationIdListSchema = Type.Array(
  Type.String({ maxLength: 2000, description: 'One location id, or several separated by commas.' }),
  {
    minItems: 1,
    maxItems: 200,
    description:
      'Location ids; an element may hold several comma-separated ids ("locA,locB"). Spaces around ids and empty entries are ignored.',
  },
)

export const CatalogListSchema = Type.Object({ carriers: Type.Array(CatalogCarrierSchema), totalCount: Type.Integer() })
export const LocationCarrierListSchema = Type.Object({
  carriers: Type.Array(LocationCarrierSchema),
  totalCount: Type.Integer(),
})
