import { normalizeIP } from '@fastify/rate-limit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import { FORM_PAGE_HELMET } from '../../platform/http/security-headers.js'
import {
  ListNotificationsQuerySchema,
  NotificationIdParams,
  NotificationListSchema,
  NotificationSchema,
  NotificationSettingsSchema,
  UnsubscribeQuerySchema,
} from './schemas.js'
import type { NotificationsService } from '../service.js'

const tags = ['notifications']
const security = [{ bearerAuth: [] }]

/** Recipient notifications (issue 17): the subscription's settings, the outbox as a list, resend. */
export const notificationsRoutes: FastifyPluginAsyncTypebox<{ notifications: NotificationsService }> = async (
  app,
  { notifications },
) => {
  app.get(
    '/api/v1/notifications/settings',
    {
      schema: {
        tags,
        security,
        summary: 'Notification settings',
        description:
          'The defaults until a PUT: enabled, arrivals batched for 60 s, no reminders, no final notice, the shipped templates.',
        response: { 200: NotificationSettingsSchema, ...errorResponses() },
      },
    },
    async (request) => notifications.getSettings(request.tenant.subId),
  )

  app.put(
    '/api/v1/notifications/settings',
    {
      schema: {
        tags,
        security,
        summary: 'Replace the notification settings',
        description: [
          'Every member is required (GET, change, PUT). `reminderAfterHours` ascend (fractions allowed: 0.5 is half an hour after the arrival email); `finalNoticeAfterHours` comes after the last reminder.',
          'Templates are Mustache; `{{x}}` is HTML-escaped in the html part. The unescaped forms `{{{x}}}` and `{{& x}}` are refused (400 naming the template).',
          'Each template is checked and test-rendered with sample parcels when saved, so a template that is too deep, repeats the parcel list inside itself, or renders too large is refused here (400 naming the template and the limit), never at send time: the limits are in the Template schema.',
        ].join('\n\n'),
        body: NotificationSettingsSchema,
        response: { 200: NotificationSettingsSchema, ...errorResponses(400) },
      },
    },
    async (request) => notifications.putSettings(request.tenant.subId, request.body),
  )

  app.get(
    '/api/v1/notifications',
    {
      schema: {
        tags,
        security,
        summary: 'List notifications',
        description: 'Newest first. Filters combine.',
        querystring: ListNotificationsQuerySchema,
        response: { 200: NotificationListSchema, ...errorResponses(400) },
      },
    },
    async (request) => notifications.list(request.tenant.subId, request.query),
  )

  app.post(
    '/api/v1/notifications/:notificationId/resend',
    {
      schema: {
        tags,
        security,
        summary: 'Send a notification again',
        description:
          'Pending again and due now with a fresh attempt budget, whatever its status, unless a worker is sending it at this moment (409: ask again once it is sent or failed); it is rendered from the packages as they are now and keeps its Message-ID.',
        params: NotificationIdParams,
        response: { 200: NotificationSchema, ...errorResponses(404, 409) },
      },
    },
    async (request) => notifications.resend(request.tenant.subId, request.params.notificationId),
  )
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
const page = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Unsubscribe</title></head><body style="font-family:sans-serif;max-width:32em;margin:3em auto">${body}</body></html>`

/**
 * The unsubscribe routes take no token and write: a limit of their own per client address, far
 * below the global one (a mail client posts once; a scanner that follows links a few times).
 */
const UNSUBSCRIBE_LIMIT = {
  max: 10,
  timeWindow: 60_000,
  keyGenerator: (request: FastifyRequest) => `unsubscribe:${normalizeIP(request.ip)}`,
}

/**
 * The unsubscribe link of every email (no bearer token: the token in the link is the credential).
 * RFC 8058: the mail client POSTs `List-Unsubscribe=One-Click` to it. A GET never unsubscribes
 * (mail scanners and link previews fetch links): it shows a page whose button POSTs.
 */
export const unsubscribeRoutes: FastifyPluginAsyncTypebox<{ notifications: NotificationsService }> = async (
  app,
  { notifications },
) => {
  // RFC 8058 §3.1: the POST body is form data (urlencoded or multipart); its content is not needed.
  for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data'])
    app.addContentTypeParser(type, { parseAs: 'string' }, (_request, _body, done) => done(null, undefined))

  const schema = {
    tags,
    description: `No bearer token: the link's token is the credential. Limited to ${UNSUBSCRIBE_LIMIT.max} requests a minute per client address (each of GET and POST), apart from the global limit: 429 with Retry-After past it.`,
    querystring: UnsubscribeQuerySchema,
    response: {
      200: { description: 'An HTML page.', content: { 'text/html': { schema: Type.String() } } },
      ...errorResponses(400, 429),
    },
  }
  const config = { rateLimit: UNSUBSCRIBE_LIMIT, helmet: FORM_PAGE_HELMET }
  app.get(
    '/notifications/unsubscribe',
    { config, schema: { ...schema, summary: 'Unsubscribe page (confirms, then POSTs)' } },
    async (request, reply) => {
      notifications.checkUnsubscribeLink(request.query.t)
      const action = `?t=${encodeURIComponent(request.query.t)}`
      return reply
        .type('text/html; charset=utf-8')
        .send(
          page(
            `<h1>Stop notification emails?</h1><p>You will no longer receive emails about your parcels from this mailroom.</p><form method="post" action="${escapeHtml(action)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
          ),
        )
    },
  )
  app.post(
    '/notifications/unsubscribe',
    { config, schema: { ...schema, summary: 'Unsubscribe (RFC 8058 one-click)' } },
    async (request, reply) => {
      await notifications.unsubscribe(request.query.t)
      return reply
        .type('text/html; charset=utf-8')
        .send(page('<h1>Unsubscribed</h1><p>You will no longer receive notification emails from this mailroom.</p>'))
    },
  )
}
