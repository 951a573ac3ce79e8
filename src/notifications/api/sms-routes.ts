import formbody from '@fastify/formbody'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import type { SmsService } from '../sms-service.js'
import {
  ContactIdParams,
  ProviderFormSchema,
  RecipientChannelsInputSchema,
  RecipientChannelsSchema,
  SmsSettingsInputSchema,
  SmsSettingsSchema,
  SubIdParams,
} from './sms-schemas.js'

const tags = ['notifications']
const security = [{ bearerAuth: [] }]

/** Texts (issue 29): the facility's provider and channels, each recipient's channels and consent. */
export const smsRoutes: FastifyPluginAsyncTypebox<{ sms: SmsService }> = async (app, { sms }) => {
  app.get(
    '/api/v1/notifications/sms/settings',
    {
      schema: {
        tags,
        security,
        summary: 'SMS provider and channel settings',
        description: 'provider none and email only until a PUT. The secret is never shown (`secretSet`).',
        response: { 200: SmsSettingsSchema, ...errorResponses() },
      },
    },
    async (request) => sms.getSettings(request.tenant.subId),
  )

  app.put(
    '/api/v1/notifications/sms/settings',
    {
      schema: {
        tags,
        security,
        summary: 'Replace the SMS provider and channel settings',
        description:
          'Switching provider changes nothing else: texts already queued go through the new one. docs/sms.md has the setup of each provider.',
        body: SmsSettingsInputSchema,
        response: { 200: SmsSettingsSchema, ...errorResponses(400) },
      },
    },
    async (request) => sms.putSettings(request.tenant.subId, request.body),
  )

  app.get(
    '/api/v1/notifications/recipients/:contactId/channels',
    {
      schema: {
        tags,
        security,
        summary: "A recipient's channels and consent to texts",
        params: ContactIdParams,
        response: { 200: RecipientChannelsSchema, ...errorResponses(404) },
      },
    },
    async (request) => sms.getRecipient(request.tenant.subId, request.params.contactId),
  )

  app.put(
    '/api/v1/notifications/recipients/:contactId/channels',
    {
      schema: {
        tags,
        security,
        summary: "Set a recipient's channels and consent to texts",
        description:
          'Opting in records the time and `source`; opting out clears them. A STOP reply is the recipient’s own and only a START from the phone undoes it.',
        params: ContactIdParams,
        body: RecipientChannelsInputSchema,
        response: { 200: RecipientChannelsSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => sms.putRecipient(request.tenant.subId, request.params.contactId, request.body),
  )
}

/**
 * What a Messages API provider posts back: incoming messages and delivery receipts, form-encoded,
 * signed with the facility's auth token (X-Twilio-Signature). No bearer token: the signature is the credential.
 */
export const smsWebhookRoutes: FastifyPluginAsyncTypebox<{ sms: SmsService }> = async (app, { sms }) => {
  await app.register(formbody)
  const schema = {
    tags,
    params: SubIdParams,
    body: ProviderFormSchema,
    headers: Type.Object({ 'x-twilio-signature': Type.Optional(Type.String({ maxLength: 200 })) }),
  }
  app.post(
    '/notifications/sms/:subId/inbound',
    {
      schema: {
        ...schema,
        summary: 'Incoming text (Messages API webhook)',
        description: 'STOP, START and HELP are acted on and answered once (docs/sms.md); other replies are recorded.',
        response: {
          200: { description: 'An empty TwiML document.', content: { 'text/xml': { schema: Type.String() } } },
          ...errorResponses(400, 404),
        },
      },
    },
    async (request, reply) => {
      const { subId } = request.params
      await sms.verifyWebhook(subId, request.url, request.body, request.headers['x-twilio-signature'])
      const b = request.body
      await sms.inbound(subId, { messageId: b.MessageSid ?? b.SmsSid, from: b.From ?? '', body: b.Body ?? '' })
      return reply.type('text/xml').send('<?xml version="1.0" encoding="UTF-8"?><Response></Response>')
    },
  )
  app.post(
    '/notifications/sms/:subId/status',
    {
      schema: {
        ...schema,
        summary: 'Delivery receipt (Messages API StatusCallback)',
        response: { 204: Type.Null({ description: 'Recorded.' }), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const { subId } = request.params
      await sms.verifyWebhook(subId, request.url, request.body, request.headers['x-twilio-signature'])
      const b = request.body
      const said = (b.MessageStatus ?? b.SmsStatus ?? '').toLowerCase()
      if (b.MessageSid && said) {
        const status = said === 'failed' ? 'undelivered' : said
        await sms.receipt(subId, {
          messageId: b.MessageSid,
          status,
          ...(b.ErrorCode ? { error: `provider error ${b.ErrorCode}` } : {}),
        })
      }
      return reply.code(204).send(null)
    },
  )
}
