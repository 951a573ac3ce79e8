import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { SkipSchema } from '../../platform/http/schemas.js'

export const DATA_TYPES = ['TEXT', 'NUMBER', 'DATE', 'BOOLEAN', 'LIST'] as const
export type DataType = (typeof DATA_TYPES)[number]
export const FIELD_STATUSES = ['ACTIVE', 'INACTIVE'] as const
export type FieldStatus = (typeof FIELD_STATUSES)[number]
export const MAX_OPTIONS = 200

// One error item naming the allowed values (a union of literals gives one per literal).
const oneOf = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) })
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()])

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })
const Name = Type.String({ maxLength: 100, pattern: '\\S', description: 'Unique per subscription, ignoring case.' })
const Options = Type.Array(Type.String({ maxLength: 100, pattern: '\\S' }), {
  maxItems: MAX_OPTIONS,
  description: 'The allowed values of a LIST field: at least one, unique ignoring case. Only for LIST.',
})

export const CustomFieldSchema = Type.Object(
  {
    customFieldId: Type.String(),
    name: Type.String(),
    status: oneOf(FIELD_STATUSES),
    dataType: oneOf(DATA_TYPES),
    required: Type.Boolean(),
    options: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'CustomField', title: 'CustomField' },
)
export type CustomField = Static<typeof CustomFieldSchema>

export const CreateCustomFieldSchema = Type.Object(
  {
    name: Name,
    status: Type.Optional(
      oneOf(FIELD_STATUSES, 'Default ACTIVE. INACTIVE fields keep their values on packages but accept no new ones.'),
    ),
    dataType: oneOf(DATA_TYPES),
    required: Type.Optional(
      Type.Boolean({
        description:
          'Default false. An ACTIVE required field must have a value on every package added or whose custom fields are updated.',
      }),
    ),
    options: Type.Optional(Options),
  },
  { additionalProperties: false },
)
export type CreateCustomField = Static<typeof CreateCustomFieldSchema>

export const UpdateCustomFieldSchema = Type.Object(
  {
    name: Type.Optional(Name),
    status: Type.Optional(oneOf(FIELD_STATUSES)),
    dataType: Type.Optional(oneOf(DATA_TYPES)),
    required: Type.Optional(Type.Boolean()),
    options: Type.Optional(Nullable(Options)),
  },
  { additionalProperties: false },
)
export type UpdateCustomField = Static<typeof UpdateCustomFieldSchema>

export const ListCustomFieldsQuerySchema = Type.Object(
  {
    status: Type.Optional(oneOf(FIELD_STATUSES, 'Only fields with this status; both when absent.')),
    skip: SkipSchema,
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 25 }),
  },
  { additionalProperties: false },
)
export type ListCustomFieldsQuery = Static<typeof ListCustomFieldsQuerySchema>

export const CustomFieldListSchema = Type.Object({
  customFields: Type.Array(CustomFieldSchema),
  totalCount: Type.Integer(),
})
export const CustomFieldIdParams = Type.Object({ customFieldId: Id })
