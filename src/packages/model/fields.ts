import { Type } from '@sinclair/typebox'
import { plain, type FieldSpec } from './field-kinds.js'
import { siteRef, siteRefOf } from './refs.js'
import { FLAG_FIELDS } from './flags.js'
import {
  CONFIRMATION_TYPES,
  ContactRef,
  Id,
  Nullable,
  SiteRef,
  Text,
  carrierCell,
  cellFrom,
  contact,
  lit,
  siteCell,
  text,
} from './field-parts.js'

/**
 * The package field registry: one entry per field of the Package record, in the record's order,
 * saying everything about it once (column, record member, input, who writes it, search, sort, the
 * default CSV export, the event data). The repo's column lists, the record and its mapping, the
 * input schema, the search parser and conditions, the export cells and the event data are built
 * from it. A plain nullable text field is one line of `plain(...)` and the capabilities it has.
 */

export { CONFIRMATION_TYPES, Id, Text, lit } from './field-parts.js'

export const PACKAGE_FIELDS = {
  packageId: {
    ...plain('package_id', 'string', 'add'),
    search: { kind: 'opaqueId', order: 2 },
    csv: 1,
    event: { schema: Type.String(), value: (s) => s.row.package_id },
  },
  trackingNumber: {
    ...plain('tracking_number', 'string', 'change'),
    csv: 2,
    event: true,
    input: {
      order: 1,
      rule: 'own',
      schema: Type.String({
        minLength: 1,
        maxLength: 80,
        description: 'Normalised: trimmed, spaces removed, upper case.',
      }),
    },
    search: { kind: 'trackingNumber', order: 1 },
    sort: { kind: 'key', order: 3 },
  },
  subId: plain('sub_id', 'string', 'add'),
  assetType: {
    ...plain('asset_type', 'string', 'change'),
    csv: 3,
    input: { order: 2, rule: 'own', schema: Type.Optional(lit(['PACKAGE', 'POUCH'] as const)) },
  },
  carrier: {
    column: 'carrier_id',
    writtenBy: 'change',
    record: Type.Optional(Type.Object({ carrierId: Type.String(), name: Type.String() })),
    read: (r, ctx) => {
      const c = r.carrier_id ? ctx.carriers.get(r.carrier_id) : undefined
      return c ? { carrierId: c.carrierId, name: c.name } : undefined
    },
    input: {
      order: 5,
      rule: 'own',
      schema: Type.Optional(
        Nullable(
          Type.Object(
            {
              carrierId: Type.String({
                minLength: 1,
                maxLength: 100,
                pattern: '^[^\\x00-\\x1F\\x7F]*\\S[^\\x00-\\x1F\\x7F]*$',
                description:
                  "Our carrier id (GET /api/v1/carriers/catalog), or the carrier's name, SCAC or common name as Pitney Bowes clients send it (`FedEx`, `UPS`, `USPS`, `DHL`, `Amazon`…), ignoring case, spaces and punctuation. The package records our id, and every response shows it.",
              }),
            },
            { additionalProperties: false },
          ),
        ),
      ),
    },
    search: { kind: 'carrierName', order: 9, field: 'carrier.name' },
    csv: { 'carrier.name': 4 },
    cells: { 'carrier.carrierId': carrierCell('carrierId'), 'carrier.name': carrierCell('name') },
    event: {
      schema: Type.Optional(Type.Object({ carrierId: Type.String(), name: Type.String() })),
      value: (s) => s.carrier,
    },
  },
  currentStatus: {
    ...plain('current_status', 'string', 'change'),
    sort: { kind: 'key', order: 4 },
    csv: 5,
    event: true,
  },
  damaged: {
    ...plain('damaged', 'boolean', 'change'),
    csv: 6,
    input: { order: 3, rule: 'own', schema: Type.Optional(Type.Boolean()) },
  },
  archived: { ...plain('archived', 'boolean', 'change'), csv: 7 },
  timezone: {
    ...plain('timezone', 'integerOrNull', 'change'),
    input: {
      order: 4,
      rule: 'replace',
      schema: Type.Optional(
        Nullable(
          Type.Integer({
            minimum: -840,
            maximum: 840,
            description: 'Minutes, JS getTimezoneOffset sign (IST = -330).',
          }),
        ),
      ),
    },
  },
  sender: {
    ...contact('sender', 'sender_id'),
    input: { order: 6, rule: 'own', schema: Type.Optional(Nullable(ContactRef)) },
    search: { kind: 'contactName', order: 4, field: 'sender.name', tally: 'sender' },
    csv: { 'sender.name': 10 },
  },
  receiver: {
    ...contact('receiver', 'receiver_id'),
    input: { order: 7, rule: 'own', schema: Type.Optional(Nullable(ContactRef)) },
    search: { kind: 'contactName', order: 3, field: 'receiver.name', tally: 'receiver' },
    sort: { kind: 'contactName', order: 5, field: 'receiver.name' },
    csv: { 'receiver.name': 8, 'receiver.email': 9 },
    event: {
      schema: Type.Optional(
        Type.Object({ contactId: Type.String(), name: Type.String(), email: Type.Optional(Type.String()) }),
      ),
      value: (s) =>
        s.receiver
          ? { contactId: s.receiver.contactId, name: s.receiver.name, email: s.receiver.email ?? undefined }
          : undefined,
    },
  },
  givenTo: {
    ...contact('givenTo', 'given_to_id'),
    input: { order: 8, rule: 'own', schema: Type.Optional(Nullable(ContactRef)) },
    search: { kind: 'contactName', order: 5, field: 'givenTo.name', tally: 'given_to' },
    csv: { 'givenTo.name': 11 },
  },
  comment: {
    ...plain('comment', 'text', 'change'),
    input: { order: 9, rule: 'replace', schema: Type.Optional(Nullable(Text(2000))) },
    search: { kind: 'text', order: 6 },
    csv: 12,
  },
  confirmationType: {
    ...plain('confirmation_type', 'text', 'change'),
    input: { order: 10, rule: 'replace', schema: Type.Optional(Nullable(lit(CONFIRMATION_TYPES))) },
  },
  additionalConfirmationType: {
    ...plain('additional_confirmation_type', 'text', 'change'),
    input: { order: 11, rule: 'replace', schema: Type.Optional(Nullable(lit(CONFIRMATION_TYPES))) },
  },
  customFields: {
    column: 'custom_fields',
    writtenBy: 'change',
    record: Type.Array(
      Type.Object({ customFieldId: Type.String(), name: Type.String(), status: Type.String(), value: Type.String() }),
    ),
    read: (r, ctx) =>
      r.custom_fields.map((v) => ({
        customFieldId: v.customFieldId,
        name: ctx.customFields.get(v.customFieldId)?.name ?? '',
        status: ctx.customFields.get(v.customFieldId)?.status ?? 'INACTIVE',
        value: v.value,
      })),
    input: {
      order: 12,
      rule: 'own',
      schema: Type.Optional(
        Type.Array(
          Type.Object(
            { customFieldId: Id, value: Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]) },
            { additionalProperties: false },
          ),
          { maxItems: 100 },
        ),
      ),
    },
  },
  currentLocation: {
    column: 'site_id',
    writtenBy: 'change',
    record: Type.Optional(SiteRef),
    read: (r, ctx) => siteRef(ctx, r.site_id),
    input: { name: 'inboundSiteId', order: 13, rule: 'own', schema: Type.Optional(Id) },
    csv: { 'currentLocation.locationHierarchy': 13 },
    cells: {
      'currentLocation.inboundSiteId': siteCell('inboundSiteId'),
      'currentLocation.name': siteCell('name'),
      'currentLocation.locationHierarchy': siteCell('locationHierarchy'),
    },
    // A site whose details the change did not read is named by id alone.
    event: {
      schema: Type.Union([SiteRef, Type.Object({ inboundSiteId: Type.String() }), Type.Null()]),
      value: (s) => (s.site ? siteRefOf(s.site) : s.row.site_id ? { inboundSiteId: s.row.site_id } : null),
    },
  },
  packageLocation: {
    ...plain('package_location', 'text', 'change'),
    input: { order: 14, rule: 'own', schema: Type.Optional(Nullable(Text(100))) },
    search: { kind: 'textOrEmpty', order: 7 },
    csv: 14,
  },
  // The locker unit goes with the bank: both or neither.
  lockerBank: {
    ...plain('locker_bank', 'text', 'change'),
    search: { kind: 'text', order: 8 },
    csv: 15,
    event: { schema: Type.Optional(Type.String()), value: (s) => s.row.locker_bank || undefined },
  },
  lockerUnit: {
    ...plain('locker_unit', 'text', 'change'),
    csv: 16,
    event: {
      schema: Type.Optional(Nullable(Type.String())),
      value: (s) => (s.row.locker_bank ? s.row.locker_unit : undefined),
    },
  },
  userName: { ...plain('user_name', 'string', 'add'), csv: 17 },
  receiveClerk: {
    ...plain(
      'receive_clerk',
      'text',
      'change',
      'Who received it at its first site; absent while an announced (IN_TRANSIT) package has not arrived.',
    ),
    csv: 18,
  },
  deliveryClerk: { ...plain('delivery_clerk', 'text', 'change'), csv: 19 },
  deliveryTime: {
    ...plain('delivery_time', 'instantOrNull', 'change'),
    sort: { kind: 'nullableKey', order: 6 },
    csv: 20,
  },
  currentRoute: {
    column: 'current_route',
    writtenBy: 'change',
    record: Type.Optional(Type.Object({ routeName: Type.String() })),
    read: (r) => (r.current_route ? { routeName: r.current_route } : undefined),
    input: {
      order: 15,
      rule: 'own',
      schema: Type.Optional(Nullable(Type.Object({ routeName: Text(100) }, { additionalProperties: false }))),
    },
  },
  pickupCode: {
    ...plain(
      'pickup_code',
      'text',
      'add',
      "The code its recipient collects it with at the desk (POST /api/v1/pickups): six characters of 23456789ABCDEFGHJKMNPQRSTVWXYZ. A waiting package always holds its receiver's current code, shared by all the receiver's waiting parcels (concurrent adds and updates included): given when it arrives waiting, and taken again when it becomes waiting under another code than that, i.e. when an announced package arrives, a handed-over or returned one is set back to waiting, an archived one is un-archived (its old code may have been used meanwhile), or its receiver is corrected (it takes the new receiver's code, or a new one; the old receiver's other parcels keep theirs). A package without a receiver has a code of its own. It stays on the package once collected (a used code is refused).",
    ),
    search: { kind: 'pickupCode', order: 10 },
    csv: 25,
  },
  ...FLAG_FIELDS,
  locationZip: {
    record: Type.Optional(Type.String()),
    read: (r, ctx) => {
      const location = r.site_id ? ctx.sites.get(r.site_id)?.locationId : undefined
      return location ? ctx.zips.get(location) : undefined
    },
    csv: 21,
    cells: {
      locationZip: cellFrom(['site_id'], (r, ctx) => {
        const location = r.site_id ? ctx.sites.get(r.site_id)?.locationId : undefined
        return location ? text(ctx.zips.get(location)) : ''
      }),
    },
  },
  insertTimestamp: { ...plain('created_at', 'instant', 'add'), sort: { kind: 'key', order: 1 }, csv: 22 },
  updateTimestamp: { ...plain('updated_at', 'instant', 'change'), sort: { kind: 'key', order: 2 }, csv: 23 },
  version: { ...plain('version', 'integer', 'change'), csv: 24 },
} as const satisfies Record<string, FieldSpec>

export type PackageFields = typeof PACKAGE_FIELDS
export type FieldName = keyof PackageFields
/** Every entry as the general spec, for code that walks the registry. */
export const FIELD_ENTRIES = Object.entries(PACKAGE_FIELDS) as Array<[FieldName, FieldSpec]>
