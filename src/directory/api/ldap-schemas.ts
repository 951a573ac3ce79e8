import {
  ALWAYS_ALLOWED,
  DEFAULT_MAX_DEACTIVATION_PERCENT,
  MAX_DEACTIVATION_PERCENT_LIMIT,
} from '../model/ldap-guard.js'
import { Type, type Static } from '@sinclair/typebox'

const Attr = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z][A-Za-z0-9-]*$' })

export const LdapMappingSchema = Type.Object(
  {
    externalId: Type.Optional({
      ...Attr,
      description: 'A stable id: entryUUID (OpenLDAP), objectGUID (AD). Default entryUUID.',
    }),
    name: Type.Optional({ ...Attr, description: 'Default cn; empty: givenName and familyName.' }),
    givenName: Type.Optional(Attr),
    familyName: Type.Optional(Attr),
    email: Type.Optional(Attr),
    phone: Type.Optional(Attr),
    company: Type.Optional(Attr),
    personalId: Type.Optional(Attr),
    unit: Type.Optional(Attr),
  },
  {
    additionalProperties: false,
    description:
      'Which attribute fills each contact field; absent: the default (entryUUID, cn, givenName, sn, mail, telephoneNumber, o, employeeNumber, roomNumber).',
  },
)

export const PutLdapSettingsSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Sync on the schedule; default true.' })),
    url: Type.String({
      maxLength: 500,
      pattern: '^ldaps?://[^\\s]+$',
      description: 'ldap://host:389 or ldaps://host:636.',
    }),
    bindDn: Type.String({ minLength: 1, maxLength: 500 }),
    bindPassword: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          'Required the first time; sealed at rest and shown as ******** afterwards (sending that back keeps it).',
      }),
    ),
    baseDn: Type.String({ minLength: 1, maxLength: 500 }),
    filter: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 1000,
        pattern: '^\\(.*\\)$',
        description: 'RFC 4515; default (objectClass=person).',
      }),
    ),
    mapping: Type.Optional(LdapMappingSchema),
    intervalMinutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 10_080, description: 'Default 60.' })),
    maxDeactivationPercent: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_DEACTIVATION_PERCENT_LIMIT,
        description: `The most of the active LDAP contacts one run may deactivate without an admin's confirmation (at least ${ALWAYS_ALLOWED} are always allowed); default ${DEFAULT_MAX_DEACTIVATION_PERCENT}, at most ${MAX_DEACTIVATION_PERCENT_LIMIT}. A run finding no usable entry never deactivates without confirmation.`,
      }),
    ),
  },
  { additionalProperties: false },
)
export type PutLdapSettings = Static<typeof PutLdapSettingsSchema>

const RunSchema = Type.Object({
  at: Type.String({ format: 'date-time' }),
  ok: Type.Boolean(),
  seen: Type.Integer({ description: 'Entries the search returned.' }),
  created: Type.Integer(),
  updated: Type.Integer(),
  deactivated: Type.Integer({ description: 'Contacts of this directory it no longer lists.' }),
  unchanged: Type.Integer(),
  invalid: Type.Integer(),
  ms: Type.Integer(),
  error: Type.Optional(Type.String()),
  runId: Type.Optional(Type.String({ description: 'Confirm a refused run by this id (`confirmRunId`).' })),
  refused: Type.Optional(
    Type.Object(
      {
        reason: Type.Union([Type.Literal('empty_search'), Type.Literal('too_many')]),
        deactivations: Type.Integer({ description: 'Contacts the run would have deactivated.' }),
        allowed: Type.Integer({ description: 'Deactivations allowed without confirmation.' }),
      },
      {
        description:
          'The run wrote nothing: it would have deactivated too many contacts (the counts are what it would have done).',
      },
    ),
  ),
})

export const LdapRunSchema = Type.Intersect([
  RunSchema,
  Type.Object({
    errors: Type.Optional(
      Type.Array(Type.Object({ externalId: Type.String(), field: Type.String(), description: Type.String() }), {
        description: 'The first 50 problems of invalid entries.',
      }),
    ),
  }),
])

export const LdapSettingsSchema = Type.Object({
  enabled: Type.Boolean(),
  url: Type.String(),
  bindDn: Type.String(),
  bindPassword: Type.String({ description: 'Always ********.' }),
  baseDn: Type.String(),
  filter: Type.String(),
  mapping: Type.Record(Type.String(), Type.String()),
  intervalMinutes: Type.Integer(),
  maxDeactivationPercent: Type.Integer(),
  nextRunAt: Type.String({ format: 'date-time' }),
  lastRun: Type.Optional(RunSchema),
})
export type LdapSettings = Static<typeof LdapSettingsSchema>

export const RunLdapSchema = Type.Object(
  {
    dryRun: Type.Optional(Type.Boolean({ description: 'true: report what the sync would do, write nothing.' })),
    confirmRunId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "The last run's `runId`, refused by the guard: an admin confirms its deactivations, once.",
      }),
    ),
  },
  { additionalProperties: false },
)
