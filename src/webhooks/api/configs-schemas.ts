import { Type, type Static } from '@sinclair/typebox'
import { SkipSchema } from '../../platform/http/schemas.js'
import { eventNames, WEBHOOK_VARIANTS, type WebhookVariant } from '../../events/index.js'

// Schemas are built per variant: each mount validates `type` and `events` against its own catalogue.
// No $id: the two mounts register the same shapes in separate scopes.
const DateTime = Type.String({ format: 'date-time' })
const Id = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' })
const AUTH_TYPES = ['custom', 'basic', 'oauth2', 'none']
// Header field values: visible ASCII, space and tab; no CR/LF (header injection).
const HeaderValue = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '^[\\x20-\\x7E\\t]+$' })

export const ConfigIdParams = Type.Object({ webHookConfigID: Id })
export const DeliveryParams = Type.Object({ webHookConfigID: Id, deliveryId: Id })

const AuthParamsBody = Type.Object(
  {
    authType: Type.String({
      enum: AUTH_TYPES,
      description:
        'custom: `headerName` + `apiKey`; basic: `username` + `password`; oauth2: `tokenUrl`, `clientId`, `clientSecret`, `scope?` (client credentials grant, token cached until it expires); none.',
    }),
    headerName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
        description: 'custom: the header carrying apiKey, e.g. X-Api-Key.',
      }),
    ),
    apiKey: Type.Optional(HeaderValue(2048)),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: '^[^:\\x00-\\x1F\\x7F]+$' })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, pattern: '^[^\\x00-\\x1F\\x7F]+$' })),
    tokenUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: '^[^\\x00-\\x1F\\x7F]+$' })),
    clientSecret: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, pattern: '^[^\\x00-\\x1F\\x7F]+$' })),
    scope: Type.Optional(Type.String({ maxLength: 1024, pattern: '^[\\x20-\\x7E]*$' })),
  },
  {
    additionalProperties: false,
    description:
      'Secrets (apiKey, password, clientSecret) are sealed at rest and masked `****abcd` in every response. On update, sending back exactly the masked value a response showed keeps the stored secret; any other value replaces it.',
  },
)
export type AuthParamsBody = Static<typeof AuthParamsBody>

export function configBodySchema(variant: WebhookVariant) {
  return Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 50, pattern: '\\S' }),
      type: Type.String({ enum: [variant], description: `Must be \`${variant}\`: the variant of this mount.` }),
      events: Type.Array(Type.String({ enum: eventNames(variant) }), {
        minItems: 1,
        maxItems: 50,
        description: 'Event names of this variant (GET /api/v1/events); duplicates are ignored.',
      }),
      url: Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'https:// (http:// only where the operator allows it). Private, loopback, link-local, CGNAT, multicast, reserved and documentation addresses are refused, now and again at every connection.',
      }),
      timeOut: Type.Integer({
        minimum: 1,
        maximum: 30,
        default: 5,
        description: 'Seconds the receiver has to answer 2xx.',
      }),
      status: Type.String({ enum: ['active', 'in-active'], default: 'active' }),
      authParams: AuthParamsBody,
    },
    { additionalProperties: false },
  )
}
export type ConfigBody = Static<ReturnType<typeof configBodySchema>>

const MaskedAuthParams = Type.Object({
  authType: Type.String({ enum: AUTH_TYPES }),
  headerName: Type.Optional(Type.String()),
  apiKey: Type.Optional(Type.String({ description: 'masked' })),
  username: Type.Optional(Type.String()),
  password: Type.Optional(Type.String({ description: 'masked' })),
  tokenUrl: Type.Optional(Type.String()),
  clientId: Type.Optional(Type.String()),
  clientSecret: Type.Optional(Type.String({ description: 'masked' })),
  scope: Type.Optional(Type.String()),
})

export const ConfigSchema = Type.Object({
  webHookConfigID: Type.String(),
  name: Type.String(),
  type: Type.String({ enum: [...WEBHOOK_VARIANTS] }),
  events: Type.Array(Type.String()),
  url: Type.String(),
  timeOut: Type.Integer(),
  status: Type.String({ enum: ['active', 'in-active'] }),
  authParams: MaskedAuthParams,
  signingSecret: Type.String({
    description:
      'The Standard Webhooks secret (`whsec_…`): in full only in the responses of create and rotateSecret, masked everywhere else.',
  }),
  previousSecretExpiresAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'After a rotation: until then, notifications carry a signature with the previous secret too.',
    }),
  ),
  disabledReason: Type.Optional(
    Type.String({
      enum: ['gone', 'failing'],
      description:
        'Why the service set the configuration in-active: the receiver answered 410 (gone), or every attempt failed for 5 days (failing).',
    }),
  ),
  disabledAt: Type.Optional(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
  lastDeliveryAt: Type.Optional(
    Type.Union([DateTime, Type.Null()], {
      description: 'GET one: when a notification was last delivered (2xx); null if never.',
    }),
  ),
  failureCount: Type.Optional(Type.Integer({ description: 'GET one: failed attempts since the last successful one.' })),
  failingSince: Type.Optional(DateTime),
})
export type ConfigView = Static<typeof ConfigSchema>

export const EventsResponseSchema = Type.Object({
  events: Type.Array(Type.Object({ eventId: Type.String(), eventName: Type.String(), description: Type.String() })),
})

export const DeliverySchema = Type.Object({
  deliveryId: Type.String(),
  eventId: Type.String({
    description: 'Also the `webhook-id` header: the same on every retry, the key to deduplicate on.',
  }),
  eventName: Type.String(),
  status: Type.String({ enum: ['pending', 'delivered', 'failed'] }),
  attempts: Type.Integer(),
  lastStatusCode: Type.Optional(Type.Integer()),
  lastError: Type.Optional(Type.String()),
  nextAttemptAt: Type.Optional(DateTime),
  deliveredAt: Type.Optional(DateTime),
  packageId: Type.Optional(Type.String()),
  sequence: Type.Optional(
    Type.Integer({
      description:
        "The event's place among its package's events (`data.sequence`): deliveries are unordered, a receiver ignores a sequence not above the last it saw for the package.",
    }),
  ),
  createdAt: DateTime,
})
export type DeliveryView = Static<typeof DeliverySchema>

export const ListDeliveriesQuery = Type.Object(
  {
    status: Type.Optional(Type.String({ enum: ['pending', 'delivered', 'failed'] })),
    skip: SkipSchema,
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  },
  { additionalProperties: false },
)
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>

export const AttemptSchema = Type.Object({
  attemptNo: Type.Integer(),
  attemptedAt: DateTime,
  succeeded: Type.Boolean(),
  statusCode: Type.Optional(Type.Integer()),
  latencyMs: Type.Optional(Type.Integer()),
  errorClass: Type.Optional(
    Type.String({
      description: 'timeout, connect, dns, ssrf, tls, network, http_3xx, http_4xx, http_5xx, oauth, lease_expired',
    }),
  ),
  error: Type.Optional(Type.String()),
  responseBody: Type.Optional(Type.String({ description: 'The first 4 KiB of the response.' })),
})
