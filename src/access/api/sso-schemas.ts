import { Type, type Static } from '@sinclair/typebox'
import { DOMAIN_PATTERN } from '../model/sso-rules.js'
import { ROLES, type Role } from '../store/user-tables.js'

const RoleSchema = Type.Unsafe<Role>({
  type: 'string',
  enum: [...ROLES],
  description: 'The role of a user created at their first single sign-on (`provisionUsers`).',
})
const Issuer = Type.String({
  minLength: 1,
  maxLength: 500,
  description:
    "The identity provider's issuer identifier (its discovery document is at `<issuer>/.well-known/openid-configuration`): https:// only, unless MAILROOM_SSO_ALLOW_HTTP is set.",
})
const ClientId = Type.String({ minLength: 1, maxLength: 300, description: 'The client id the provider gave mailroom.' })
const Domain = Type.String({ minLength: 3, maxLength: 253, pattern: DOMAIN_PATTERN })

const fields = {
  enabled: Type.Boolean({ description: 'Whether the sign-in page offers single sign-on for the email domains.' }),
  issuer: Type.Optional(Issuer),
  clientId: Type.Optional(ClientId),
  emailDomains: Type.Array(Domain, {
    maxItems: 20,
    description:
      'The email domains of the subscription’s staff (`example.com`). The sign-in page finds the subscription by the domain of the email typed, before it knows the user. A domain claimed here is pending until the installation’s operator grants it (`mailroom sso grant`; see `domainClaims`), and a domain is granted to one subscription at most. Compared in lower case.',
  }),
  provisionUsers: Type.Boolean({
    description:
      'true: an email of one of `emailDomains` with no user yet becomes a new user with `defaultRole` at its first sign-on. false: only existing users sign in; others are refused.',
  }),
  defaultRole: RoleSchema,
  requireVerifiedEmail: Type.Boolean({
    description: 'true (default): the id_token must carry `email_verified: true`, else the sign-in is refused.',
  }),
  passwordSignIn: Type.Boolean({
    description:
      'false: the subscription’s users cannot sign in with a password, only through the provider (allowed only while `enabled`). Break-glass: an admin whose password was set on the server with `mailroom users create` or `mailroom users password` still can.',
  }),
}

export const SsoSettingsInputSchema = Type.Object(
  {
    enabled: fields.enabled,
    issuer: fields.issuer,
    clientId: fields.clientId,
    clientSecret: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Null()], {
        description:
          'The client secret (sealed at rest, never shown again: answers show `****` and its last 4 characters). Absent, or the mask an answer showed: the stored one is kept. null: none (a public client, PKCE only).',
      }),
    ),
    emailDomains: Type.Optional({ ...fields.emailDomains, default: [] }),
    provisionUsers: Type.Optional({ ...fields.provisionUsers, default: false }),
    defaultRole: Type.Optional({ ...fields.defaultRole, default: 'clerk' }),
    requireVerifiedEmail: Type.Optional({ ...fields.requireVerifiedEmail, default: true }),
    passwordSignIn: Type.Optional({ ...fields.passwordSignIn, default: true }),
    // What a read returns, a write accepts (CONTRACT §5): the read-only fields are ignored.
    redirectUri: Type.Optional(Type.String({ maxLength: 2000, description: 'Read-only: ignored in a write.' })),
    updatedAt: Type.Optional(Type.String({ maxLength: 100, description: 'Read-only: ignored in a write.' })),
    domainClaims: Type.Optional(
      Type.Array(Type.Unknown(), { maxItems: 100, description: 'Read-only: ignored in a write.' }),
    ),
  },
  { additionalProperties: false, title: 'SsoSettingsInput' },
)
export type SsoSettingsBody = Static<typeof SsoSettingsInputSchema>

export const SsoSettingsSchema = Type.Object(
  {
    ...fields,
    clientSecret: Type.Optional(Type.String({ description: 'Masked: `****` and the last 4 characters.' })),
    domainClaims: Type.Array(
      Type.Object({
        domain: Type.String(),
        status: Type.Union([Type.Literal('active'), Type.Literal('pending')], {
          description:
            '`active`: granted by the installation’s operator, the sign-in page finds this subscription by it. `pending`: not yet (or granted to no one); single sign-on does not start for it.',
        }),
      }),
      { description: 'Each of `emailDomains` and whether it is in force.' },
    ),
    redirectUri: Type.String({
      description:
        'The redirect URI to register with the provider, exactly (MAILROOM_PUBLIC_URL + /console/api/sso/callback).',
    }),
    updatedAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { title: 'SsoSettings' },
)
export type SsoSettings = Static<typeof SsoSettingsSchema>

export const SsoStartQuery = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254, description: 'The email typed on the sign-in page.' }),
})

export const SsoCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 2000 })),
    state: Type.Optional(Type.String({ maxLength: 2000 })),
    iss: Type.Optional(Type.String({ maxLength: 2000 })),
    error: Type.Optional(Type.String({ maxLength: 2000 })),
    error_description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
)
