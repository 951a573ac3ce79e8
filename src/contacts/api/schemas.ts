import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { LANGUAGE_PATTERN, SkipSchema } from '../../platform/http/schemas.js'

export const CONTACT_TYPES = ['SENDER', 'RECEIVER', 'ALL'] as const
export type ContactType = (typeof CONTACT_TYPES)[number]
export const CONTACT_STATUSES = ['active', 'inactive'] as const
export type ContactStatus = (typeof CONTACT_STATUSES)[number]
export const CONTACT_SOURCES = ['manual', 'csv', 'scim', 'ldap'] as const

// A plain `enum` keyword gives one error item naming the allowed values; a union of literals gives
// one item per literal plus one for the union.
const oneOf = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) })
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()])

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })
const Name = Type.String({ maxLength: 200, pattern: '\\S' })
const SiteLink = Type.Object({ inboundSiteId: Id }, { additionalProperties: false })

const optionalText = {
  company: Type.String({ maxLength: 200 }),
  email: Type.String({
    maxLength: 254,
    description:
      'One plain address (RFC 5322 addr-spec, `local@domain.tld`): no display name, angle brackets, comments or list.',
  }),
  phone: Type.String({ maxLength: 50 }),
  personalId: Type.String({ maxLength: 100, description: 'Employee, student or resident number.' }),
}

/** Directory fields (issues 27, 28): the same rules on create and update. */
const directory = {
  aliases: Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }), {
    maxItems: 10,
    description:
      'Alternate first names and preferred names ("Bob", "Liz"): a label addressed to one of them finds the contact. Trimmed; duplicates ignoring case are kept once. PUT replaces the list; `[]` clears it.',
  }),
  unit: Type.String({
    maxLength: 100,
    description: 'Unit, room, suite or mail stop as labels print it ("Suite 400", "MS 12-B").',
  }),
  externalId: Type.String({
    minLength: 1,
    maxLength: 200,
    description:
      "The person's id in the identity provider, directory or roster file that feeds mailroom. Unique among the subscription's contacts: 409 already_exists otherwise.",
  }),
  group: Type.Boolean({
    description:
      'A group or department (the front office, Accounts Payable): business mail addressed to no person goes to it. Default false.',
  }),
  moveInDate: Type.String({ format: 'date', description: 'The day the person arrives (`YYYY-MM-DD`).' }),
  moveOutDate: Type.String({
    format: 'date',
    description: 'The day the person leaves (`YYYY-MM-DD`): a moved-out recipient with parcels waiting is flagged.',
  }),
  delegates: Type.Array(Type.Object({ contactId: Id }, { additionalProperties: false }), {
    maxItems: 50,
    description:
      "Contacts who may collect this contact's parcels (a partner, an assistant; a SCIM group's members): a hand-over to one is recorded as such (the pickup's `delegate`). Each a live contact of the subscription, not the contact itself: 400 naming `delegates` otherwise. PUT replaces the list; `[]` clears it.",
  }),
  /** Read-only, but accepted: a client may PUT back the body it got from GET. */
  source: oneOf(
    CONTACT_SOURCES,
    'Read-only: set by mailroom from the path a write came by; ignored when sent, so a GET body can be PUT back.',
  ),
}

const Language = Type.String({
  pattern: LANGUAGE_PATTERN,
  maxLength: 6,
  description:
    "The language of the contact's notification emails: ISO 639, optionally with an ISO 3166 region (`fr`, `pt-BR`). Absent: the subscription's. `null` on PUT goes back to it.",
})

export const ContactSchema = Type.Object(
  {
    contactId: Type.String(),
    contactType: oneOf(CONTACT_TYPES),
    name: Type.String(),
    company: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    phone: Type.Optional(Type.String()),
    personalId: Type.Optional(Type.String()),
    location: Type.Optional(Type.Object({ inboundSiteId: Type.String() })),
    mailStopLocation: Type.Optional(Type.Object({ inboundSiteId: Type.String() })),
    status: oneOf(CONTACT_STATUSES),
    notify: Type.Boolean({
      description:
        'Whether the contact gets notification emails (default true); the unsubscribe link sets it to false.',
    }),
    language: Type.Optional(
      Type.String({
        description:
          "The language of the contact's notification emails (`fr`, `pt-BR`); absent: the subscription's (GET /api/v1/notifications/settings).",
      }),
    ),
    aliases: Type.Array(Type.String(), { description: directory.aliases.description }),
    unit: Type.Optional(Type.String({ description: directory.unit.description })),
    externalId: Type.Optional(Type.String({ description: directory.externalId.description })),
    source: oneOf(
      CONTACT_SOURCES,
      'Where the record came from: `manual` (the API or the console), `csv` (a roster file), `scim` (an identity provider), `ldap` (a directory sync). Set by mailroom, never by the caller.',
    ),
    group: Type.Boolean({ description: directory.group.description }),
    moveInDate: Type.Optional(Type.String({ format: 'date', description: directory.moveInDate.description })),
    moveOutDate: Type.Optional(Type.String({ format: 'date', description: directory.moveOutDate.description })),
    delegates: Type.Optional(
      Type.Array(Type.Object({ contactId: Type.String() }), {
        description: `${directory.delegates.description} Absent: none.`,
      }),
    ),
  },
  { $id: 'Contact', title: 'Contact' },
)
export type Contact = Static<typeof ContactSchema>

export const CreateContactSchema = Type.Object(
  {
    contactType: oneOf(CONTACT_TYPES, 'SENDER or RECEIVER, or ALL for a contact that can be both.'),
    name: Name,
    company: Type.Optional(optionalText.company),
    email: Type.Optional(optionalText.email),
    phone: Type.Optional(optionalText.phone),
    personalId: Type.Optional(optionalText.personalId),
    location: Type.Optional(SiteLink),
    mailStopLocation: Type.Optional(SiteLink),
    status: Type.Optional(oneOf(CONTACT_STATUSES, 'Default active.')),
    notify: Type.Optional(Type.Boolean({ description: 'Notification emails wanted; default true.' })),
    language: Type.Optional(Language),
    aliases: Type.Optional(directory.aliases),
    unit: Type.Optional(directory.unit),
    externalId: Type.Optional(directory.externalId),
    group: Type.Optional(directory.group),
    moveInDate: Type.Optional(directory.moveInDate),
    moveOutDate: Type.Optional(directory.moveOutDate),
    delegates: Type.Optional(directory.delegates),
    source: Type.Optional(directory.source),
  },
  { additionalProperties: false },
)
export type CreateContact = Static<typeof CreateContactSchema>

/** PUT merges: a field given replaces, a field absent stays, `null` (or "") clears an optional one. */
export const UpdateContactSchema = Type.Object(
  {
    contactType: Type.Optional(oneOf(CONTACT_TYPES)),
    name: Type.Optional(Name),
    company: Type.Optional(Nullable(optionalText.company)),
    email: Type.Optional(Nullable(optionalText.email)),
    phone: Type.Optional(Nullable(optionalText.phone)),
    personalId: Type.Optional(Nullable(optionalText.personalId)),
    location: Type.Optional(Nullable(SiteLink)),
    mailStopLocation: Type.Optional(Nullable(SiteLink)),
    status: Type.Optional(oneOf(CONTACT_STATUSES)),
    notify: Type.Optional(Type.Boolean()),
    language: Type.Optional(Nullable(Language)),
    aliases: Type.Optional(directory.aliases),
    unit: Type.Optional(Nullable(directory.unit)),
    externalId: Type.Optional(Nullable(directory.externalId)),
    group: Type.Optional(directory.group),
    moveInDate: Type.Optional(Nullable(directory.moveInDate)),
    moveOutDate: Type.Optional(Nullable(directory.moveOutDate)),
    delegates: Type.Optional(directory.delegates),
    source: Type.Optional(directory.source),
  },
  { additionalProperties: false },
)
export type UpdateContact = Static<typeof UpdateContactSchema>

export const ListContactsQuerySchema = Type.Object(
  {
    query: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'Typeahead: case-insensitive prefix of the name, the email or the personalId.',
      }),
    ),
    contactType: Type.Optional(
      oneOf(
        CONTACT_TYPES,
        'SENDER: SENDER and ALL contacts (those usable as a sender). RECEIVER: RECEIVER and ALL. ALL: only contacts of type ALL.',
      ),
    ),
    status: Type.Optional(oneOf(CONTACT_STATUSES, 'Only contacts with this status; both when absent.')),
    skip: SkipSchema,
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 25 }),
  },
  { additionalProperties: false },
)
export type ListContactsQuery = Static<typeof ListContactsQuerySchema>

export const ContactListSchema = Type.Object({ contacts: Type.Array(ContactSchema), totalCount: Type.Integer() })
export const ContactIdParams = Type.Object({ contactId: Id })
