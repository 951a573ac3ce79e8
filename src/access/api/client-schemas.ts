import { Type, type Static } from '@sinclair/typebox'
import { CLIENT_STATUSES, type ClientStatus } from '../store/client-tables.js'

// One enum (not a union of literals): a wrong value is one problem, not one per member.
const StatusSchema = Type.Unsafe<ClientStatus>({
  type: 'string',
  enum: [...CLIENT_STATUSES],
  description: '`disabled`: its secret and every token it holds are refused (within a second on every process).',
})
const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  description: 'What the client is for (shown in lists); not blank.',
})
const ClientId = Type.String({ description: 'The client id: the user name of HTTP Basic at the token endpoint.' })
const ClientSecret = Type.String({
  description: 'The client secret: shown in this answer only, stored only as a keyed hash. Keep it now.',
})

/** An API client as the clients API shows it: never its secret or the secret's hash. */
export const ApiClientSchema = Type.Object(
  {
    clientId: ClientId,
    name: Type.String(),
    status: StatusSchema,
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'ApiClient' },
)
export type ApiClientView = Static<typeof ApiClientSchema>

export const CreatedApiClientSchema = Type.Object({
  clientId: ClientId,
  clientSecret: ClientSecret,
  name: Type.String(),
  status: StatusSchema,
  createdAt: Type.String({ format: 'date-time' }),
})
export type CreatedApiClient = Static<typeof CreatedApiClientSchema>

export const CreateApiClientSchema = Type.Object({ name: Name }, { additionalProperties: false })

export const UpdateApiClientSchema = Type.Object(
  { status: Type.Optional(StatusSchema), name: Type.Optional(Name) },
  { additionalProperties: false },
)
export type UpdateApiClient = Static<typeof UpdateApiClientSchema>

export const ClientIdParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 100 }) })

export const NewSecretSchema = Type.Object({ clientId: ClientId, clientSecret: ClientSecret })
