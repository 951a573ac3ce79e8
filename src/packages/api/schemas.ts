import { Type, type Static, type TObject } from '@sinclair/typebox'
import { SiteRefSchema } from '../../sites/index.js'
import { FIELD_ENTRIES, Id, lit, Text, type FieldName, type PackageFields } from '../model/fields.js'
import { acceptReadOnly, readOnlyMembers } from '../model/read-only.js'
import { PackageRecordSchema } from '../model/record.js'
import { PACKAGE_STATUSES } from '../model/statuses.js'

export { PACKAGE_STATUSES } from '../model/statuses.js'
export { PackageRecordSchema, type PackageRecord } from '../model/record.js'
export const IMAGE_LEVELS = ['ASSET', 'ACTIVITY'] as const
export const IMAGE_TYPES = ['PHOTO', 'LABEL', 'SIGNATURE', 'DAMAGE', 'OTHER'] as const

type InputOf<F> = F extends { input: { schema: infer S } } ? S : never
type InputName<K extends FieldName> = PackageFields[K] extends { input: { name: infer N extends string } } ? N : K
/** Fields of `package` in Add and Update, from the registry's inputs in their order; in Update `null` clears an optional field. */
type PackageInputs = {
  -readonly [K in FieldName as PackageFields[K] extends { input: object } ? InputName<K> : never]: InputOf<
    PackageFields[K]
  >
}
const packageFields = Object.fromEntries(
  FIELD_ENTRIES.filter(([, f]) => f.input)
    .sort(([, a], [, b]) => a.input!.order - b.input!.order)
    .map(([name, f]) => [f.input!.name ?? name, f.input!.schema]),
) as PackageInputs

// Write schemas accept what a read returns beside what they write (packages/model/read-only.ts): the
// location as a site reference, an image as Get Package type=IMAGES lists it.
const LastActivitySchema = Type.Object(
  {
    status: lit(PACKAGE_STATUSES),
    location: Type.Optional(
      acceptReadOnly(
        Type.Object(
          {
            inboundSiteId: Type.Optional(Id),
            packageLocation: Type.Optional(Text(100)),
            lockerBank: Type.Optional(Text(50)),
            lockerUnit: Type.Optional(Text(50)),
          },
          { additionalProperties: false },
        ),
        SiteRefSchema,
      ),
    ),
    comment: Type.Optional(Text(2000)),
  },
  { additionalProperties: false },
)

const ImageRecordSchema = Type.Object({
  imageId: Type.String(),
  imageLevel: Type.String(),
  imageType: Type.String(),
  contentType: Type.String(),
  tempURL: Type.String(),
  activityId: Type.Optional(Type.String()),
})
const AttachImageSchema = acceptReadOnly(
  Type.Object(
    {
      imageLevel: lit(IMAGE_LEVELS),
      imageType: lit(IMAGE_TYPES),
      tempURL: Type.String({ minLength: 1, maxLength: 300 }),
      contentType: Type.Optional(Type.String({ maxLength: 50 })),
    },
    { additionalProperties: false },
  ),
  ImageRecordSchema,
)

const SiteRef = Type.Ref('SiteRef')

const READ_ONLY_REFS = { SiteRef: SiteRefSchema }
/** `package` of Add and Update: the writable fields, and what a read returns beside them (see packages/model/read-only.ts). */
const packageBody = <T extends TObject>(write: T) => acceptReadOnly(write, PackageRecordSchema, READ_ONLY_REFS)
const readOnlyNote = `Also accepted and ignored, so a record read from a GET can be sent back: the read-only members of the Package record (${readOnlyMembers(
  Type.Object(packageFields),
  PackageRecordSchema,
)
  .map((k) => `\`${k}\``)
  .join(
    ', ',
  )}) and, inside the objects, the members a read adds (\`carrier.name\`, \`customFields[].name\` and \`status\`, a contact's \`name\`, \`company\`, \`location\`…). The status changes only through \`lastActivity.status\`; the package is the one the path names. A member in no schema is a 400 naming it.`

export const AddPackageSchema = Type.Object(
  {
    package: packageBody(Type.Object(packageFields, { additionalProperties: false, description: readOnlyNote })),
    lastActivity: Type.Optional(LastActivitySchema),
    images: Type.Optional(Type.Array(AttachImageSchema, { maxItems: 20 })),
  },
  { additionalProperties: false },
)
export type AddPackage = Static<typeof AddPackageSchema>

export const UpdatePackageSchema = Type.Object(
  {
    package: packageBody(
      Type.Object(
        { ...packageFields, trackingNumber: Type.Optional(packageFields.trackingNumber) },
        { additionalProperties: false, description: readOnlyNote },
      ),
    ),
    lastActivity: Type.Optional(LastActivitySchema),
    images: Type.Optional(Type.Array(AttachImageSchema, { maxItems: 20 })),
  },
  { additionalProperties: false },
)
export type UpdatePackage = Static<typeof UpdatePackageSchema>

const ImageOut = Type.Object({
  imageId: Type.String(),
  tempURL: Type.String(),
  contentType: Type.String(),
  imageType: Type.String(),
})
export const WriteResponseSchema = Type.Object({
  packageId: Type.String(),
  trackingNumber: Type.String(),
  images: Type.Array(ImageOut),
})

export const ActivitiesResponseSchema = Type.Object({
  packageId: Type.String(),
  trackingNumber: Type.String(),
  activities: Type.Array(
    Type.Object({
      activityId: Type.String(),
      sequence: Type.Integer(),
      status: Type.String(),
      location: Type.Optional(SiteRef),
      packageLocation: Type.Optional(Type.String()),
      lockerBank: Type.Optional(Type.String()),
      lockerUnit: Type.Optional(Type.String()),
      damaged: Type.Boolean(),
      comment: Type.Optional(Type.String()),
      userName: Type.String(),
      reportedBy: Type.Optional(
        Type.String({
          description:
            'X-User-Name as the client sent it: a claim, not verified; userName is the authenticated client id. For a signed-in console user: the name of their account, when it has one (userName is their email).',
        }),
      ),
      pickupId: Type.Optional(
        Type.String({
          description:
            'The one-step pickup (GET /api/v1/pickups/{pickupId}) that delivered the package with this activity.',
        }),
      ),
      images: Type.Array(ImageOut),
      occurredAt: Type.String({ format: 'date-time' }),
    }),
  ),
})
export const ImagesResponseSchema = Type.Object({
  packageId: Type.String(),
  trackingNumber: Type.String(),
  images: Type.Array(ImageRecordSchema),
})

export const PackageIdParams = Type.Object({ packageId: Id })
export const GetPackageQuery = Type.Object(
  { type: lit(['DETAILED', 'ACTIVITIES', 'IMAGES'] as const, 'What to return.') },
  { additionalProperties: false },
)
export const ArchiveBodySchema = Type.Object(
  { archived: Type.Optional(Type.Boolean({ default: true })) },
  { additionalProperties: false },
)
export { SiteRefSchema }
