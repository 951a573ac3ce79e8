import { Type, type Static } from '@sinclair/typebox'
import { ALLOW_NUL } from '../../platform/http/validator.js'

const Address = Type.Object({
  line1: Type.Optional(Type.String()),
  line2: Type.Optional(Type.String()),
  city: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  postalCode: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
})
const Service = Type.Object({ code: Type.Optional(Type.String()), name: Type.Optional(Type.String()) })
const SiteRef = Type.Ref('SiteRef')

/** A contact as PB's decode shows it (PB-REFERENCE §8.2): the contact's own fields, sites as full references. */
const ContactMembers = {
  contactId: Type.String(),
  name: Type.String(),
  company: Type.Optional(Type.String()),
  personalId: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
  location: Type.Optional(SiteRef),
  mailStopLocation: Type.Optional(SiteRef),
}
export const DecodeContactSchema = Type.Object(ContactMembers)
export type DecodeContact = Static<typeof DecodeContactSchema>

export const DecodeQuerySchema = Type.Object(
  {
    trackingNumber: Type.String({
      minLength: 1,
      maxLength: 16_384,
      description: 'The raw scanned text, URL-encoded; control characters (GS, RS, EOT) and AIM prefixes allowed.',
    }),
    expectedPackage: Type.Optional(
      Type.Boolean({
        description:
          'The clerk expects the package to exist already (delivery or pick-up): the answer says `expectedPackageFound`.',
      }),
    ),
    editflow: Type.Optional(
      Type.Boolean({ description: 'The scan edits an existing package: archived packages count as existing too.' }),
    ),
  },
  { additionalProperties: false, [ALLOW_NUL]: true },
)

export const DecodeResponseSchema = Type.Object(
  {
    package: Type.Object({
      trackingNumber: Type.Union([Type.String(), Type.Null()]),
      carrier: Type.Optional(
        Type.Object(
          { carrierId: Type.String(), name: Type.String(), scac: Type.Optional(Type.String()) },
          {
            description:
              'Only from a strong reading that no other carrier shares: the symbol names the carrier (SCAC, carrier URL), or a carrier-specific prefix with a valid check (1Z, IMpb, S10…) or a prefix only that carrier issues (TBA, JJD…). A bare shape (10, 12, 15, 16, 20 digits, an SSCC) never sets it, whatever its check digit: see `decodedCarriers`.',
          },
        ),
      ),
      service: Type.Optional(Service),
      assetType: Type.String(),
      sender: Type.Optional(
        Type.Object(ContactMembers, {
          description: 'The sender of the package the subscription holds under this number.',
        }),
      ),
      receiver: Type.Optional(
        Type.Object(
          {
            name: Type.Optional(Type.String()),
            company: Type.Optional(Type.String()),
            address: Type.Optional(Address),
            postalCode: Type.Optional(Type.String()),
            country: Type.Optional(Type.String()),
            contactId: Type.Optional(Type.String()),
            personalId: Type.Optional(Type.String()),
            phone: Type.Optional(Type.String()),
            location: Type.Optional(SiteRef),
            mailStopLocation: Type.Optional(SiteRef),
          },
          {
            description:
              "The receiver of the package the subscription holds (a contact); else the label's ship-to, with the contact's fields when it names exactly one known recipient.",
          },
        ),
      ),
      givenTo: Type.Optional(
        Type.Object(ContactMembers, { description: 'Whom the held package was handed to, when set.' }),
      ),
      receiverCandidates: Type.Optional(
        Type.Array(
          Type.Object({ contactId: Type.String(), name: Type.String(), company: Type.Optional(Type.String()) }),
        ),
      ),
      destination: Type.Optional(Address),
      packageCount: Type.Optional(Type.Object({ n: Type.Integer(), of: Type.Integer() })),
      weight: Type.Optional(Type.String()),
      packageId: Type.Optional(Type.String()),
      currentStatus: Type.Optional(Type.String()),
      currentLocation: Type.Optional(SiteRef),
      expectedPackageFound: Type.Optional(Type.Boolean()),
    }),
    decodedCarriers: Type.Array(
      Type.Object({
        carrierId: Type.String(),
        name: Type.String(),
        service: Type.Optional(Service),
        scac: Type.Optional(Type.String()),
        checkDigitValid: Type.Union([Type.Boolean(), Type.Null()], {
          description:
            'null: the format defines no check character (TBA…, 1LS…, JJD…), so nothing vouches for the number either way.',
        }),
        trackingNumber: Type.String(),
        trackingUrl: Type.Optional(Type.String({ description: "The carrier's public tracking page for this number." })),
      }),
    ),
    barcode: Type.Object({
      format: Type.Union([Type.Literal('PLAIN'), Type.Literal('ISO15434'), Type.Literal('GS1')]),
      envelope: Type.Optional(
        Type.Object({ formats: Type.Array(Type.String()), header: Type.Optional(Type.String()) }),
      ),
      fields: Type.Record(Type.String(), Type.String()),
    }),
  },
  { $id: 'DecodeResult', title: 'DecodeResult' },
)
export type DecodeResponse = Static<typeof DecodeResponseSchema>
