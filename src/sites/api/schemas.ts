import { Type, type Static } from '@sinclair/typebox'
import { SkipSchema } from '../../platform/http/schemas.js'
import { HOLDING_FEE_DESCRIPTION, HoldingFeeSchema } from '../model/holding-fee.js'
import { QUIET_HOURS_DESCRIPTION, QuietHoursSchema } from '../model/quiet-hours.js'

export const SITE_TYPES = ['site', 'building', 'floor', 'room', 'mailstop', 'shelf', 'locker'] as const
const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' })
export const SITE_STATUSES = ['active', 'inactive'] as const
const Status = Type.Union(SITE_STATUSES.map((s) => Type.Literal(s)))
const OPENING_HOURS_DESCRIPTION =
  'An extension to the vendor contract: when recipients can collect parcels here, free text (e.g. "Mon–Fri 8:00–18:00", at most 200 characters). Arrival and reminder emails show the opening hours of the site a parcel waits at, or of its nearest ancestor that has them. Optional; omitted when unset.'
const OpeningHours = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description: OPENING_HOURS_DESCRIPTION,
})

export const SIGNATURE_RULES = ['required', 'optional', 'off'] as const
const SIGNATURE_RULE_DESCRIPTION =
  "An extension to the vendor contract: the collector's signature a hand-over of a parcel waiting here needs: `required`, `optional` or `off`. Unset: the nearest ancestor's; at the top, `required`. Where required, a signature typed by the collector (their full name) counts, and a photo counts where `photoProofAllowed`."
const PHOTO_PROOF_DESCRIPTION =
  'An extension to the vendor contract: a photo of the collector or of their ID may be attached instead of the signature. Unset: the nearest ancestor’s; at the top, false.'
const SignatureRule = Type.Unsafe<(typeof SIGNATURE_RULES)[number]>({
  type: 'string',
  enum: [...SIGNATURE_RULES],
  description: SIGNATURE_RULE_DESCRIPTION,
})
const PhotoProof = Type.Boolean({ description: PHOTO_PROOF_DESCRIPTION })
const handOverFields = {
  signatureRule: Type.Optional(SignatureRule),
  photoProofAllowed: Type.Optional(PhotoProof),
  holdingFee: Type.Optional(HoldingFeeSchema),
  quietHours: Type.Optional(QuietHoursSchema),
}

export const SiteRefSchema = Type.Object(
  {
    inboundSiteId: Type.String(),
    name: Type.String(),
    type: Type.String({ enum: [...SITE_TYPES] }),
    parent: Type.Union([Type.String(), Type.Null()], {
      description: 'Id of the parent site; null for a top-tier site.',
    }),
    locationHierarchy: Type.String({ description: 'Names root→self joined by "| ".' }),
    ancestorlist: Type.Array(Type.String(), { description: 'Ids root→parent.' }),
    topTier: Type.Object(
      { inboundSiteId: Type.String(), name: Type.String() },
      { description: 'The root; EMPTY_SITE when the site is itself top tier.' },
    ),
  },
  { $id: 'SiteRef', title: 'SiteRef' },
)
export type SiteRef = Static<typeof SiteRefSchema>

export const SiteSchema = Type.Object(
  {
    ...SiteRefSchema.properties,
    locationId: Type.Union([Type.String(), Type.Null()]),
    status: Status,
    primary: Type.Boolean(),
    openingHours: Type.Optional(Type.String({ description: OPENING_HOURS_DESCRIPTION })),
    signatureRule: Type.Optional(
      Type.String({ enum: [...SIGNATURE_RULES], description: `${SIGNATURE_RULE_DESCRIPTION} Omitted when unset.` }),
    ),
    photoProofAllowed: Type.Optional(Type.Boolean({ description: `${PHOTO_PROOF_DESCRIPTION} Omitted when unset.` })),
    holdingFee: Type.Optional({ ...HoldingFeeSchema, description: `${HOLDING_FEE_DESCRIPTION} Omitted when unset.` }),
    quietHours: Type.Optional({ ...QuietHoursSchema, description: `${QUIET_HOURS_DESCRIPTION} Omitted when unset.` }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Site', title: 'Site' },
)
export type Site = Static<typeof SiteSchema>

const CHILD_TYPES = SITE_TYPES.filter((t): t is Exclude<(typeof SITE_TYPES)[number], 'site'> => t !== 'site')
const TopTierSite = Type.Object(
  {
    type: Type.Literal('site'),
    name: Name,
    locationId: Id,
    primary: Type.Optional(Type.Boolean()),
    status: Type.Optional(Status),
    openingHours: Type.Optional(OpeningHours),
    ...handOverFields,
  },
  { additionalProperties: false, title: 'TopTierSite' },
)
const ChildSite = Type.Object(
  {
    type: Type.Unsafe<(typeof CHILD_TYPES)[number]>({ type: 'string', enum: CHILD_TYPES }),
    name: Name,
    parent: Id,
    status: Type.Optional(Status),
    openingHours: Type.Optional(OpeningHours),
    ...handOverFields,
  },
  { additionalProperties: false, title: 'ChildSite' },
)
/** Discriminated on `type`, so a mistake is reported against the variant the client meant. */
export const CreateSiteSchema = Type.Unsafe<Static<typeof TopTierSite> | Static<typeof ChildSite>>({
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [TopTierSite, ChildSite],
})
export type CreateSite = Static<typeof CreateSiteSchema>

export const UpdateSiteSchema = Type.Object(
  {
    name: Type.Optional(Name),
    status: Type.Optional(Status),
    primary: Type.Optional(Type.Boolean()),
    parent: Type.Optional(Id),
    openingHours: Type.Optional(
      Type.Union([OpeningHours, Type.Null()], { description: `${OPENING_HOURS_DESCRIPTION} null removes them.` }),
    ),
    signatureRule: Type.Optional(
      Type.Union([SignatureRule, Type.Null()], { description: `${SIGNATURE_RULE_DESCRIPTION} null: inherit again.` }),
    ),
    photoProofAllowed: Type.Optional(
      Type.Union([PhotoProof, Type.Null()], { description: `${PHOTO_PROOF_DESCRIPTION} null: inherit again.` }),
    ),
    holdingFee: Type.Optional(
      Type.Union([HoldingFeeSchema, Type.Null()], { description: `${HOLDING_FEE_DESCRIPTION} null: inherit again.` }),
    ),
    quietHours: Type.Optional(
      Type.Union([QuietHoursSchema, Type.Null()], { description: `${QUIET_HOURS_DESCRIPTION} null: inherit again.` }),
    ),
  },
  { additionalProperties: false },
)
export type UpdateSite = Static<typeof UpdateSiteSchema>

export const SITE_SORT_FIELDS = ['name', 'type', 'createdAt', 'updatedAt', 'locationHierarchy'] as const

export const ListSitesQuerySchema = Type.Object(
  {
    skip: SkipSchema,
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 25 }),
    sort: Type.String({
      pattern: `^(${SITE_SORT_FIELDS.join('|')}),(ASC|DESC|asc|desc)$`,
      default: 'locationHierarchy,ASC',
      description: `field,ASC|DESC; fields: ${SITE_SORT_FIELDS.join(', ')}`,
    }),
    query: Type.Optional(Type.String({ maxLength: 100, description: 'Case-insensitive substring of the name.' })),
    searchBy: Type.Optional(
      Type.String({
        pattern: '^(parent|ancestorlist):[A-Za-z0-9_-]+$',
        description: '`parent:<id>` (direct children) or `ancestorlist:<id>` (the whole subtree below).',
      }),
    ),
    fetchPrimarySite: Type.Boolean({ default: false, description: 'Only the primary site.' }),
    timestamp: Type.Optional(
      Type.String({
        pattern: '^(before:|after:)?\\d{4}-\\d{2}-\\d{2}(T[0-9:.]+(Z|[+-]\\d{2}:?\\d{2})?)?$',
        description: 'Filter on updatedAt: `before:<ISO>`, `after:<ISO>`, or a plain ISO time meaning after.',
      }),
    ),
    status: Type.Optional(Status),
  },
  { additionalProperties: false },
)
export type ListSitesQuery = Static<typeof ListSitesQuerySchema>

export const SiteIdParams = Type.Object({ id: Id })
export const LocationIdsBody = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 200 })
