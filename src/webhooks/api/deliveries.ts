import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import {
  AttemptSchema,
  ConfigIdParams,
  DeliveryParams,
  DeliverySchema,
  ListDeliveriesQuery,
} from './configs-schemas.js'
import type { WebhookVariant } from '../../events/index.js'
import type { Webhooks } from '../module.js'

const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { basicAuth: [] }]

export const deliveryRoutes: FastifyPluginAsyncTypebox<{ webhooks: Webhooks; variant: WebhookVariant }> = async (
  app,
  { webhooks, variant },
) => {
  const tags = [`${variant} webhooks`]
  const deliveries = webhooks.deliveries

  app.get(
    '/api/v1/webhookConfig/:webHookConfigID/deliveries',
    {
      schema: {
        tags,
        security,
        summary: 'List the deliveries of a configuration',
        description:
          'Newest first, `skip`/`limit` paged (limit default 50, at most 200), optionally one `status`. pending: waiting for its first attempt or a retry (`nextAttemptAt`), or held behind an earlier event of the same package; delivered: a 2xx came back (`deliveredAt`); failed: retries ran out, the receiver answered 410, the configuration was disabled or set in-active, or the event is no longer subscribed. Deliveries and their attempts are kept for the retention period (WEBHOOK_RETENTION_DAYS, default 30 days) after their last change.',
        params: ConfigIdParams,
        querystring: ListDeliveriesQuery,
        response: { 200: Type.Object({ deliveries: Type.Array(DeliverySchema) }), ...errorResponses(400, 404) },
      },
    },
    async (request) => ({
      deliveries: await deliveries.list(request.tenant.subId, variant, request.params.webHookConfigID, request.query),
    }),
  )

  app.post(
    '/api/v1/webhookConfig/:webHookConfigID/deliveries/:deliveryId/retry',
    {
      schema: {
        tags,
        security,
        summary: 'Retry a delivery now',
        description:
          'A failed delivery (or a pending one waiting for its next attempt) becomes due now, with a fresh 72-hour retry window from that attempt; the same eventId and body are sent. 409 when it was already delivered or the configuration is in-active.',
        params: DeliveryParams,
        response: { 200: DeliverySchema, ...errorResponses(400, 404, 409) },
      },
    },
    async (request) =>
      deliveries.retry(request.tenant.subId, variant, request.params.webHookConfigID, request.params.deliveryId),
  )

  app.get(
    '/api/v1/webhookConfig/:webHookConfigID/deliveries/:deliveryId/attempts',
    {
      schema: {
        tags,
        security,
        summary: 'The attempts of a delivery',
        description:
          'Every attempt, oldest first: when, the status code, latency, an error class (timeout, connect, dns, ssrf, tls, network, oauth, http_3xx, http_4xx, http_5xx, lease_expired when a worker stopped mid-attempt) and the first 4 KiB of the response.',
        params: DeliveryParams,
        response: { 200: Type.Object({ attempts: Type.Array(AttemptSchema) }), ...errorResponses(400, 404) },
      },
    },
    async (request) => ({
      attempts: await deliveries.attempts(
        request.tenant.subId,
        variant,
        request.params.webHookConfigID,
        request.params.deliveryId,
      ),
    }),
  )
}
