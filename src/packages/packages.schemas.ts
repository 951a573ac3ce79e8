import { Type, type Static, type TLiteral, type TObject, type TUnion } from '@sinclair/typebox'
import { SiteRefSchema } from '../sites/sites.schemas.js'
import { acceptReadOnly, readOnlyMembers } from './packages.read-only.js'

export const PACKAGE_STATUSES = ['RECEIVED', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'READY_FOR_PICKUP', 'IN_LOCKER', 'DELIVERED', 'PICKED_UP', 'DAMAGED', 'RETURNED_TO_SENDER', 'ARCHIVED'] as const
export type PackageStatus = (typeof PACKAGE_STATUSES)[number]
export const CONFIRMATION_TYPES = ['NONE', 'SIGNATURE', 'PHOTO', 'PHONE', 'EMAIL', 'PIN', 'ID_CHECK'] as const
export const IMAGE_LEVELS = ['ASSET', 'ACTIVITY'] as const
export const IMAGE_TYPES = ['PHOTO', 'LABEL', 'SIGNATURE', 'DAMAGE', 'OTHER'] as const

const lit = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Union(values.map((v) => Type.Literal(v)), description ? { description } : {}) as unknown as TUnion<Array<TLiteral<T[number]>>>
const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })
const Text = (max: number) => Type.String({ maxLength: max })
const Nullable = <T extends import('@sinclair/typebox').TSchema>(t: T) => Type.Union([t, Type.Null()])
const Ref = Type.Object({ contactId: Id }, { additionalProperties: false })

/** Fields of `package` in Add and Update; in Update `null` clears an optional field. */
const packageFields = {
  trackingNumber: Type.String({ minLength: 1, maxLength: 80, description: 'Normalised: trimmed, spaces removed, upper case.' }),
  assetType: Type.Optional(lit(['PACKAGE', 'POUCH'] as const)),
  damaged: Type.Optional(Type.Boolean()),
  timezone: Type.Optional(Nullable(Type.Integer({ minimum: -840, maximum: 840, description: 'Minutes, JS getTimezoneOffset sign (IST = -330).' }))),
  carrier: Type.Optional(Nullable(Type.Object({
    carrierId: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\x00-\\x1F\\x7F]*\\S[^\\x00-\\x1F\\x7F]*$', description: 'Our carrier id (GET /api/v1/carriers/catalog), or the carrier\'s name, SCAC or common name as Pitney Bowes clients send it (`FedEx`, `UPS`, `USPS`, `DHL`, `Amazon`…), ignoring case, spaces and punctuation. The package records our id, and every response shows it.' }),
  }, { additionalProperties: false }))),
  sender: Type.Optional(Nullable(Ref)),
  receiver: Type.Optional(Nullable(Ref)),
  givenTo: Type.Optional(Nullable(Ref)),
  comment: Type.Optional(Nullable(Text(2000))),
  confirmationType: Type.Optional(Nullable(lit(CONFIRMATION_TYPES))),
  additionalConfirmationType: Type.Optional(Nullable(lit(CONFIRMATION_TYPES))),
  customFields: Type.Optional(Type.Array(Type.Object({ customFieldId: Id, value: Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]) }, { additionalProperties: false }), { maxItems: 100 })),
  inboundSiteId: Type.Optional(Id),
  packageLocation: Type.Optional(Nullable(Text(100))),
  currentRoute: Type.Optional(Nullable(Type.Object({ routeName: Text(100) }, { additionalProperties: false }))),
}

// Write schemas accept what a read returns beside what they write (packages.read-only.ts): the
// location as a site reference, an image as Get Package type=IMAGES lists it.
const LastActivitySchema = Type.Object({
  status: lit(PACKAGE_STATUSES),
  location: Type.Optional(acceptReadOnly(Type.Object({
    inboundSiteId: Type.Optional(Id),
    packageLocation: Type.Optional(Text(100)),
    lockerBank: Type.Optional(Text(50)),
    lockerUnit: Type.Optional(Text(50)),
  }, { additionalProperties: false }), SiteRefSchema)),
  comment: Type.Optional(Text(2000)),
}, { additionalProperties: false })

const ImageRecordSchema = Type.Object({ imageId: Type.String(), imageLevel: Type.String(), imageType: Type.String(), contentType: Type.String(), tempURL: Type.String(), activityId: Type.Optional(Type.String()) })
const AttachImageSchema = acceptReadOnly(Type.Object({
  imageLevel: lit(IMAGE_LEVELS),
  imageType: lit(IMAGE_TYPES),
  tempURL: Type.String({ minLength: 1, maxLength: 300 }),
  contentType: Type.Optional(Type.String({ maxLength: 50 })),
}, { additionalProperties: false }), ImageRecordSchema)

const SiteRef = Type.Ref('SiteRef')
const ContactSchema = Type.Object({
  contactId: Type.String(), name: Type.String(), company: Type.Optional(Type.String()), email: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()), personalId: Type.Optional(Type.String()), location: Type.Optional(SiteRef), mailStopLocation: Type.Optional(SiteRef),
})

export const PackageRecordSchema = Type.Object({
  packageId: Type.String(),
  trackingNumber: Type.String(),
  subId: Type.String(),
  assetType: Type.String(),
  carrier: Type.Optional(Type.Object({ carrierId: Type.String(), name: Type.String() })),
  currentStatus: Type.String(),
  damaged: Type.Boolean(),
  archived: Type.Boolean(),
  timezone: Type.Optional(Type.Integer()),
  sender: Type.Optional(ContactSchema),
  receiver: Type.Optional(ContactSchema),
  givenTo: Type.Optional(ContactSchema),
  comment: Type.Optional(Type.String()),
  confirmationType: Type.Optional(Type.String()),
  additionalConfirmationType: Type.Optional(Type.String()),
  customFields: Type.Array(Type.Object({ customFieldId: Type.String(), name: Type.String(), status: Type.String(), value: Type.String() })),
  currentLocation: Type.Optional(SiteRef),
  packageLocation: Type.Optional(Type.String()),
  lockerBank: Type.Optional(Type.String()),
  lockerUnit: Type.Optional(Type.String()),
  userName: Type.String(),
  receiveClerk: Type.Optional(Type.String({ description: 'Who received it at its first site; absent while an announced (IN_TRANSIT) package has not arrived.' })),
  deliveryClerk: Type.Optional(Type.String()),
  deliveryTime: Type.Optional(Type.String({ format: 'date-time' })),
  currentRoute: Type.Optional(Type.Object({ routeName: Type.String() })),
  locationZip: Type.Optional(Type.String()),
  insertTimestamp: Type.String({ format: 'date-time' }),
  updateTimestamp: Type.String({ format: 'date-time' }),
  version: Type.Integer(),
}, { $id: 'Package', title: 'Package' })
export type PackageRecord = Static<typeof PackageRecordSchema>

const READ_ONLY_REFS = { SiteRef: SiteRefSchema }
/** `package` of Add and Update: the writable fields, and what a read returns beside them (see packages.read-only.ts). */
const packageBody = <T extends TObject>(write: T) => acceptReadOnly(write, PackageRecordSchema, READ_ONLY_REFS)
const readOnlyNote = `Also accepted and ignored, so a record read from a GET can be sent back: the read-only members of the Package record (${readOnlyMembers(Type.Object(packageFields), PackageRecordSchema).map((k) => `\`${k}\``).join(', ')}) and, inside the objects, the members a read adds (\`carrier.name\`, \`customFields[].name\` and \`status\`, a contact's \`name\`, \`company\`, \`location\`…). The status changes only through \`lastActivity.status\`; the package is the one the path names. A member in no schema is a 400 naming it.`

export const AddPackageSchema = Type.Object({
  package: packageBody(Type.Object(packageFields, { additionalProperties: false, description: readOnlyNote })),
  lastActivity: Type.Optional(LastActivitySchema),
  images: Type.Optional(Type.Array(AttachImageSchema, { maxItems: 20 })),
}, { additionalProperties: false })
export type AddPackage = Static<typeof AddPackageSchema>

export const UpdatePackageSchema = Type.Object({
  package: packageBody(Type.Object({ ...packageFields, trackingNumber: Type.Optional(packageFields.trackingNumber) }, { additionalProperties: false, description: readOnlyNote })),
  lastActivity: Type.Optional(LastActivitySchema),
  images: Type.Optional(Type.Array(AttachImageSchema, { maxItems: 20 })),
}, { additionalProperties: false })
export type UpdatePackage = Static<typeof UpdatePackageSchema>

const ImageOut = Type.Object({ imageId: Type.String(), tempURL: Type.String(), contentType: Type.String(), imageType: Type.String() })
export const WriteResponseSchema = Type.Object({ packageId: Type.String(), trackingNumber: Type.String(), images: Type.Array(ImageOut) })

export const ActivitiesResponseSchema = Type.Object({
  packageId: Type.String(),
  trackingNumber: Type.String(),
  activities: Type.Array(Type.Object({
    activityId: Type.String(), sequence: Type.Integer(), status: Type.String(), location: Type.Optional(SiteRef),
    packageLocation: Type.Optional(Type.String()), lockerBank: Type.Optional(Type.String()), lockerUnit: Type.Optional(Type.String()),
    damaged: Type.Boolean(), comment: Type.Optional(Type.String()), userName: Type.String(),
    reportedBy: Type.Optional(Type.String({ description: 'X-User-Name as the client sent it: a claim, not verified; userName is the authenticated client id.' })),
    images: Type.Array(ImageOut), occurredAt: Type.String({ format: 'date-time' }),
  })),
})
export const ImagesResponseSchema = Type.Object({
  packageId: Type.String(),
  trackingNumber: Type.String(),
  images: Type.Array(ImageRecordSchema),
})

export const PackageIdParams = Type.Object({ packageId: Id })
export const GetPackageQuery = Type.Object({ type: lit(['DETAILED', 'ACTIVITIES', 'IMAGES'] as const, 'What to return.') }, { additionalProperties: false })
export const ArchiveBodySchema = Type.Object({ archived: Type.Optional(Type.Boolean({ default: true })) }, { additionalProperties: false })
export { SiteRefSchema }
