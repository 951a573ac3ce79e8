/** The SCIM URNs mailroom speaks (RFC 7643 §8.7, RFC 7644 §3). */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User'
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group'
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'
/** mailroom's own extension: what a mailroom needs that the core schema has no place for. */
export const MAILROOM_SCHEMA = 'urn:mailroom:params:scim:schemas:extension:mailroom:2.0:User'
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse'
const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType'
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema'

/** Most resources one list answers (RFC 7644 §3.4.2.4 lets the provider bound `count`). */
export const MAX_PAGE = 200
export const DEFAULT_PAGE = 100

export function serviceProviderConfig(base: string) {
  return {
    schemas: [SPC_SCHEMA],
    documentationUri: `${base.replace(/\/scim\/v2$/, '')}/docs`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: 'A SCIM token of the subscription, made by an admin in the console or through the API.',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  }
}

export function resourceTypes(base: string) {
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A recipient: a mailroom contact.',
      schema: USER_SCHEMA,
      schemaExtensions: [
        { schema: ENTERPRISE_SCHEMA, required: false },
        { schema: MAILROOM_SCHEMA, required: false },
      ],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'A group contact (a department): receives mail addressed to no person; its members may collect it.',
      schema: GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ]
}

type Attr = {
  name: string
  type: 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime'
  multiValued?: boolean
  required?: boolean
  caseExact?: boolean
  mutability?: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly'
  uniqueness?: 'none' | 'server' | 'global'
  description: string
  subAttributes?: Attr[]
}

const attr = (a: Attr): Record<string, unknown> => ({
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...a,
  ...(a.subAttributes ? { subAttributes: a.subAttributes.map(attr) } : {}),
})

const multi = (name: string, description: string): Attr => ({
  name,
  type: 'complex',
  multiValued: true,
  description,
  subAttributes: [
    { name: 'value', type: 'string', description: 'The value.' },
    { name: 'type', type: 'string', description: 'work, home, other.' },
    { name: 'primary', type: 'boolean', description: 'The one mailroom keeps.' },
  ],
})

/** The schemas as mailroom reads them: what is mapped to a contact, and how (docs/directory.md). */
export function schemas(base: string) {
  const def = (id: string, name: string, description: string, attributes: Attr[]) => ({
    schemas: [SCHEMA_SCHEMA],
    id,
    name,
    description,
    attributes: attributes.map(attr),
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
  })
  return [
    def(USER_SCHEMA, 'User', 'A recipient.', [
      {
        name: 'userName',
        type: 'string',
        required: true,
        uniqueness: 'server',
        description: 'Unique per subscription, ignoring case.',
      },
      {
        name: 'name',
        type: 'complex',
        description: 'The contact name is displayName, else name.formatted, else givenName and familyName.',
        subAttributes: [
          { name: 'formatted', type: 'string', description: 'Full name.' },
          { name: 'givenName', type: 'string', description: 'First name.' },
          { name: 'familyName', type: 'string', description: 'Last name.' },
        ],
      },
      { name: 'displayName', type: 'string', description: 'The contact name.' },
      { name: 'nickName', type: 'string', description: 'Kept as an alias (another first name).' },
      { name: 'preferredLanguage', type: 'string', description: 'The language of notification emails.' },
      { name: 'active', type: 'boolean', description: 'false deactivates the contact; nothing is deleted.' },
      multi('emails', "The primary (else work, else first) is the contact's email."),
      multi('phoneNumbers', "The primary (else work, else first) is the contact's phone."),
    ]),
    def(ENTERPRISE_SCHEMA, 'EnterpriseUser', 'Enterprise attributes.', [
      { name: 'employeeNumber', type: 'string', description: "The contact's personalId." },
      { name: 'organization', type: 'string', description: "The contact's company." },
      { name: 'department', type: 'string', description: "The contact's company when organization is absent." },
    ]),
    def(MAILROOM_SCHEMA, 'MailroomUser', 'What a mailroom needs of a recipient.', [
      { name: 'unit', type: 'string', description: 'Unit, room, suite or mail stop as printed on labels.' },
      { name: 'aliases', type: 'string', multiValued: true, description: 'Other first names (Bob, Liz).' },
      { name: 'moveInDate', type: 'string', description: 'YYYY-MM-DD.' },
      { name: 'moveOutDate', type: 'string', description: 'YYYY-MM-DD: from then the recipient has left.' },
    ]),
    def(GROUP_SCHEMA, 'Group', 'A group contact.', [
      { name: 'displayName', type: 'string', required: true, description: 'The group contact name.' },
      {
        name: 'members',
        type: 'complex',
        multiValued: true,
        description: 'Users who may collect the group’s parcels (its delegates).',
        subAttributes: [
          { name: 'value', type: 'string', mutability: 'immutable', description: 'A User id.' },
          { name: '$ref', type: 'reference', mutability: 'immutable', description: 'The User.' },
          { name: 'display', type: 'string', mutability: 'readOnly', description: 'Its name.' },
        ],
      },
    ]),
  ]
}
