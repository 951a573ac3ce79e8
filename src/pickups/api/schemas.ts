import { Type, type Static } from '@sinclair/typebox'
import { PageSchema } from '../../platform/http/schemas.js'
import { Id, lit, Text } from '../../packages/index.js'
import { PICKUP_CODE_ALPHABET, PICKUP_CODE_LENGTH } from '../model/pickup-code.js'
import { PickupFeesSchema } from '../model/fees.js'

/** The images a pickup takes as its proof: what the desk collects at the hand-over. */
export const PICKUP_IMAGE_TYPES = ['SIGNATURE', 'PHOTO'] as const

const GivenToSchema = Type.Object(
  {
    contactId: Type.Optional({
      ...Id,
      description: 'The contact who collects (any contact type): recorded as each package’s givenTo.',
    }),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '\\S',
        description:
          'The name of someone who is not a contact, collecting on the receiver’s behalf: recorded in the pickup and in each DELIVERED activity’s comment; the package’s givenTo stays its receiver.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Who collects: `{contactId}` or `{name}`, one of them. Absent: the receiver collects their own parcels.',
  },
)

export const CreatePickupSchema = Type.Object(
  {
    pickupCode: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20,
        description: `The code from the arrival email (the packages' \`pickupCode\`): ${PICKUP_CODE_LENGTH} characters of ${PICKUP_CODE_ALPHABET}, any case, spaces and hyphens ignored. Selects every waiting package under it.`,
      }),
    ),
    contactId: Type.Optional({
      ...Id,
      description:
        "Instead of a code: the receiver whose waiting packages are handed over (the desk checked the person's identity).",
    }),
    packageIds: Type.Optional(
      Type.Array(Id, {
        minItems: 1,
        maxItems: 200,
        description:
          'Only these of the selected packages (default: all of them). Each must be waiting under the code, or for the contact: 400 naming `packageIds[i]` otherwise.',
      }),
    ),
    givenTo: Type.Optional(GivenToSchema),
    images: Type.Optional(
      Type.Array(
        Type.Object(
          {
            imageType: lit(PICKUP_IMAGE_TYPES),
            tempURL: Type.String({
              minLength: 1,
              maxLength: 300,
              description: 'temp/images/<imageId>, as POST /api/v1/packages/images returned it.',
            }),
            contentType: Type.Optional(Type.String({ maxLength: 50 })),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: 5,
          description:
            "Proof of the hand-over (a signature, a photo): attached, at level ACTIVITY, to the first package's DELIVERED activity, and listed in the pickup.",
        },
      ),
    ),
    typedSignature: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '\\S',
        description:
          "The collector's full name, typed by them as their signature (a keyboard user's way to sign): recorded as typed in the pickup and in each DELIVERED activity's comment. Counts as the signature a site's `signatureRule: required` asks for.",
      }),
    ),
    comment: Type.Optional(Text(1000)),
  },
  { additionalProperties: false },
)
export type CreatePickup = Static<typeof CreatePickupSchema>

export const PickupSchema = Type.Object(
  {
    pickupId: Type.String(),
    pickupCode: Type.Optional(Type.String({ description: 'The code the pickup was made with, if any.' })),
    contactId: Type.Optional(
      Type.String({ description: 'The receiver on whose behalf the packages were collected, if they have one.' }),
    ),
    packageIds: Type.Array(Type.String()),
    deliveredAt: Type.String({ format: 'date-time' }),
    givenTo: Type.Object(
      {
        contactId: Type.Optional(Type.String()),
        name: Type.String(),
      },
      { description: 'Who collected: a contact, or a name given at the desk (no contactId).' },
    ),
    onBehalfOf: Type.Optional(
      Type.Object(
        { contactId: Type.String(), name: Type.Optional(Type.String()) },
        { description: 'The receiver, when someone else collected for them (givenTo is not the receiver).' },
      ),
    ),
    delegate: Type.Optional(
      Type.Boolean({
        description: "true: the collector is one of the receiver's delegates (contacts allowed to collect for them).",
      }),
    ),
    inboundSites: Type.Array(Type.Object({ inboundSiteId: Type.String(), name: Type.String() }), {
      description: 'Where the packages were handed over: the sites of their DELIVERED activities.',
    }),
    images: Type.Array(
      Type.Object({
        imageId: Type.String(),
        imageType: Type.String(),
        contentType: Type.String(),
        tempURL: Type.String(),
      }),
    ),
    comment: Type.Optional(Type.String()),
    typedSignature: Type.Optional(
      Type.String({ description: "The collector's full name typed as their signature, when they typed one." }),
    ),
    holdingFees: Type.Optional(PickupFeesSchema),
    userName: Type.String({ description: 'The API client that made the pickup.' }),
    clerk: Type.String({ description: 'The clerk who handed the packages over (X-User-Name, else the client id).' }),
  },
  { title: 'Pickup' },
)
export type Pickup = Static<typeof PickupSchema>

export const PickupIdParams = Type.Object({ pickupId: Id })

export const ListPickupsQuerySchema = Type.Object(
  {
    contactId: Type.Optional({
      ...Id,
      description: 'Pickups of this receiver, or collected by this contact.',
    }),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Handed over at or after.' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Handed over before.' })),
    page: PageSchema,
    size: Type.Integer({ minimum: 1, maximum: 200, default: 25 }),
  },
  { additionalProperties: false },
)
export type ListPickupsQuery = Static<typeof ListPickupsQuerySchema>

export const PickupListSchema = Type.Object({
  pickups: Type.Array(PickupSchema, { description: 'Newest first.' }),
  totalCount: Type.Integer(),
})
