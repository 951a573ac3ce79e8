import { Type, type Static } from '@sinclair/typebox'
import { PASSWORD_MAX, PASSWORD_MIN } from '../model/passwords.js'
import { ROLES, type Role } from '../store/user-tables.js'

const Email = Type.String({
  minLength: 3,
  maxLength: 254,
  format: 'email',
  description: 'Signs the user in; unique across the installation, case-insensitive.',
})
// One enum (not a union of literals): a wrong value is one problem, not one per member.
const RoleSchema = Type.Unsafe<Role>({
  type: 'string',
  enum: [...ROLES],
  description:
    '`admin`: everything in the subscription; `clerk`: the desk (packages, scans, images, contacts), no set-up.',
})
const Name = Type.String({ minLength: 1, maxLength: 100, description: 'Shown in the console.' })
const SiteId = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'Limits a clerk to this inbound site and the sites below it (package writes only).',
})
const Password = Type.String({
  minLength: PASSWORD_MIN,
  maxLength: PASSWORD_MAX,
  description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters; stored only as an argon2id hash.`,
})

/** A console user as every answer shows it: never the password or its hash. */
export const UserSchema = Type.Object(
  {
    userId: Type.String(),
    email: Type.String(),
    name: Type.Optional(Type.String()),
    role: RoleSchema,
    subscription: Type.String({ description: "The subscription's id (subId)." }),
    siteId: Type.Optional(Type.String()),
  },
  { title: 'ConsoleUser' },
)
export type ConsoleUser = Static<typeof UserSchema>

export const UserDetailSchema = Type.Object({
  userId: Type.String(),
  email: Type.String(),
  name: Type.Optional(Type.String()),
  role: RoleSchema,
  subscription: Type.String(),
  siteId: Type.Optional(Type.String()),
  status: Type.Unsafe<'active' | 'disabled'>({ type: 'string', enum: ['active', 'disabled'] }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
})
export type UserDetail = Static<typeof UserDetailSchema>

export const CreateUserSchema = Type.Object(
  {
    email: Email,
    role: RoleSchema,
    name: Type.Optional(Name),
    siteId: Type.Optional(SiteId),
    password: Type.Optional(Password),
  },
  { additionalProperties: false },
)
export type CreateUser = Static<typeof CreateUserSchema>

export const CreatedUserSchema = Type.Object({
  user: UserDetailSchema,
  password: Type.Optional(
    Type.String({ description: 'The one-time password, when none was given: shown only now, never stored.' }),
  ),
})

export const UpdateUserSchema = Type.Object(
  {
    role: Type.Optional(RoleSchema),
    disabled: Type.Optional(Type.Boolean({ description: 'true signs the user out everywhere and refuses sign-in.' })),
    siteId: Type.Optional(Type.Union([SiteId, Type.Null()], { description: 'null: the whole subscription.' })),
    name: Type.Optional(Type.Union([Name, Type.Null()])),
  },
  { additionalProperties: false },
)
export type UpdateUser = Static<typeof UpdateUserSchema>

export const UserIdParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 100 }) })

export const SignInSchema = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
  },
  { additionalProperties: false },
)

export const SessionSchema = Type.Object({
  user: UserSchema,
  csrfToken: Type.String({
    description: 'Send it as X-CSRF-Token on every POST, PUT, PATCH and DELETE made with the session cookie.',
  }),
})

/** The body is optional (as archive's): without a password one is generated and returned once. */
export const ResetPasswordSchema = Type.Object({ password: Type.Optional(Password) }, { additionalProperties: false })

export const ResetPasswordResponseSchema = Type.Object({
  password: Type.Optional(
    Type.String({ description: 'The one-time password, when none was given: shown only now, never stored.' }),
  ),
})

/** The signed-in user's own password change: the current one, and a new one by the same rules as any. */
export const ChangePasswordSchema = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
    newPassword: Password,
  },
  { additionalProperties: false },
)

export const SessionInfoSchema = Type.Object(
  {
    sessionId: Type.String({ description: 'Opaque public id: never the cookie value or its hash.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When the session signed in.' }),
    lastSeenAt: Type.String({
      format: 'date-time',
      description: 'Its last request, to the minute (the idle window slides about once a minute).',
    }),
    userAgent: Type.Optional(
      Type.String({ description: 'The browser’s User-Agent at sign-in (cut at 256 characters).' }),
    ),
    current: Type.Boolean({ description: 'true for the session making this request.' }),
  },
  { title: 'ConsoleSession' },
)

export const SessionListSchema = Type.Object({ sessions: Type.Array(SessionInfoSchema) })

export const SessionIdParams = Type.Object({ sessionId: Type.String({ minLength: 1, maxLength: 100 }) })
