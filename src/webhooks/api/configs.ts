import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import {
  ConfigIdParams,
  ConfigSchema,
  configBodySchema,
  DeliverySchema,
  EventsResponseSchema,
} from './configs-schemas.js'
import { describeEvents, eventCatalogue, type WebhookVariant } from '../../events/index.js'
import type { Webhooks } from '../module.js'
import { outcomeOf } from '../../platform/idempotency/hooks.js'

const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { basicAuth: [] }]

const NOTIFICATION = [
  'Notifications: `POST <url>` with the configured auth, `Content-Type: application/json`, Standard Webhooks headers `webhook-id` (the eventId: the same on every retry, dedupe on it), `webhook-timestamp` (of the attempt) and `webhook-signature` (`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` under the signing secret; during 24 h after a rotation two signatures, space-separated).',
  'Body `{eventId, eventName, type, occurredAt, subId, webHookConfigID, data}`; `data.sequence` numbers the events of one package (1, 2, 3, … in the order they happened).',
  "Delivery is at least once. A 2xx within `timeOut` seconds is delivered; anything else (3xx included: redirects are not followed) is retried with exponential backoff and full jitter (5 s doubling up to 6 h) for at least 72 hours from its first attempt , or after the receiver's `Retry-After` (seconds or HTTP date, at most 6 h). 410 Gone sets the configuration in-active (`disabledReason: gone`), and so do 5 days of continuous failure (`failing`: a success ends a failure streak, and so does having nothing left to retry); their pending deliveries are failed and can be retried once the configuration is active again.",
  'Delivery is unordered, as with Svix and Stripe: every delivery is independent, so a receiver that fails one event (retried for up to 72 h) still gets the later ones; a retry may arrive after a later event of the same package, and an event may arrive twice. Receiver recipe: deduplicate on `webhook-id`, and keep per package the highest `data.sequence` seen; an event whose `sequence` is not above it is older news: ignore it (or fetch the package for its current state).',
  'A configuration receives the events that occur after it was created. Updates (url, auth, timeOut, events, status) apply to the next notification; an event no longer subscribed is not sent. A deleted configuration gets nothing more; its pending deliveries are cancelled.',
  'Destinations: https only (http where the operator allows it); the host must resolve to public addresses, checked when the configuration is saved and again at every connection.',
].join('\n\n')

export const configRoutes: FastifyPluginAsyncTypebox<{ webhooks: Webhooks; variant: WebhookVariant }> = async (
  app,
  { webhooks, variant },
) => {
  const tags = [`${variant} webhooks`]
  const configs = webhooks.configs
  const Body = configBodySchema(variant)

  for (const url of ['/api/v1/events', '/api/v1/webhook/events']) {
    app.get(
      url,
      {
        schema: {
          tags,
          security,
          summary: `The ${variant} event types`,
          description: `The events a ${variant} configuration can subscribe to, and the package change that emits each (\`description\` says the same). \`eventId\` is the type's stable identifier (\`${variant}.<eventName>\`). A test notification (POST /webhookConfig/{id}/test) has eventName \`Ping\`, which is not subscribable.\n\n${describeEvents(variant)}`,
          response: { 200: EventsResponseSchema, ...errorResponses() },
        },
      },
      async () => ({ events: eventCatalogue(variant) }),
    )
  }

  app.post(
    '/api/v1/webhookConfig',
    {
      schema: {
        tags,
        security,
        summary: 'Create a webhook configuration',
        description: [
          `\`type\` must be \`${variant}\`; \`events\` from GET /api/v1/events. \`timeOut\` 1–30 s (default 5); \`status\` default active. Names need not be unique.`,
          'The response carries `signingSecret` (`whsec_…`) in full, once; later responses mask it, like the credentials of `authParams` (`****abcd`; secrets under 8 characters show only `****`).',
          NOTIFICATION,
        ].join('\n\n'),
        body: Body,
        response: { 200: ConfigSchema, ...errorResponses(400) },
      },
    },
    async (request, reply) =>
      configs.create(request.tenant.subId, variant, request.body, outcomeOf(request, reply, 200)),
  )

  app.get(
    '/api/v1/webhookConfig',
    {
      schema: {
        tags,
        security,
        summary: 'List webhook configurations',
        description: `The caller's ${variant} configurations, oldest first; deleted ones are gone.`,
        response: { 200: Type.Object({ webhookConfigs: Type.Array(ConfigSchema) }), ...errorResponses() },
      },
    },
    async (request) => ({ webhookConfigs: await configs.list(request.tenant.subId, variant) }),
  )

  app.get(
    '/api/v1/webhookConfig/:webHookConfigID',
    {
      schema: {
        tags,
        security,
        summary: 'Get a webhook configuration',
        description:
          "With `lastDeliveryAt` (the last 2xx, null if never) and `failureCount` (failed attempts since the last success; `failingSince` when the streak began). Another subscription's or the other variant's configuration is 404.",
        params: ConfigIdParams,
        response: { 200: ConfigSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => configs.get(request.tenant.subId, variant, request.params.webHookConfigID),
  )

  app.put(
    '/api/v1/webhookConfig/:webHookConfigID',
    {
      schema: {
        tags,
        security,
        summary: 'Replace a webhook configuration',
        description: [
          'Same body as create; applies to the next notification. A credential sent back exactly as a response masked it keeps the stored one; any other value is the new credential (a mask that matches no stored secret is refused).',
          'Setting `status: in-active` fails the pending deliveries (retry them after re-activating); removing an event from `events` fails its pending deliveries. Setting `status: active` again clears `disabledReason` and the failure streak. The signing secret is unchanged (see rotateSecret).',
        ].join('\n\n'),
        params: ConfigIdParams,
        body: Body,
        response: { 200: ConfigSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => configs.update(request.tenant.subId, variant, request.params.webHookConfigID, request.body),
  )

  app.delete(
    '/api/v1/webhookConfig/:webHookConfigID',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a webhook configuration',
        description:
          'Nothing is sent to it afterwards (a request already on the wire finishes); its pending deliveries are cancelled. Its delivery history is purged with the retention period.',
        params: ConfigIdParams,
        response: { 200: Type.Object({}), ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      await configs.remove(request.tenant.subId, variant, request.params.webHookConfigID)
      return {}
    },
  )

  app.post(
    '/api/v1/webhookConfig/:webHookConfigID/rotateSecret',
    {
      schema: {
        tags,
        security,
        summary: 'Rotate the signing secret',
        description:
          'Returns the configuration with the new `signingSecret` in full, once. For 24 hours (`previousSecretExpiresAt`) every notification carries two signatures, new and previous, space-separated in `webhook-signature`, so receivers switch without a gap. Rotating again within the 24 hours drops the older secret at once.',
        params: ConfigIdParams,
        response: { 200: ConfigSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => configs.rotateSecret(request.tenant.subId, variant, request.params.webHookConfigID),
  )

  app.post(
    '/api/v1/webhookConfig/:webHookConfigID/test',
    {
      schema: {
        tags,
        security,
        summary: 'Send a test notification',
        description:
          'Queues a signed notification with eventName `Ping` (and `data.message`), sent through the same worker, signature, auth, retries and delivery log as every event; it skips the event subscription check and the per-package order. Returns its delivery (follow it with the deliveries list). 409 if the configuration is in-active.',
        params: ConfigIdParams,
        response: { 200: DeliverySchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) => webhooks.deliveries.sendTest(request.tenant.subId, variant, request.params.webHookConfigID),
  )
}
