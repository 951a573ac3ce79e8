import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import { errorResponses, LANGUAGE_PATTERN } from '../../platform/http/schemas.js'
import { composeEmail, type PackageView } from '../model/compose.js'
import { NOTIFICATION_KINDS, type NotificationKind } from '../model/kinds.js'
import { placeOf } from '../model/place.js'
import { checkSettings } from '../model/settings.js'
import { NotificationSettingsSchema } from './schemas.js'

const PreviewQuerySchema = Type.Object(
  {
    kind: Type.Unsafe<NotificationKind>({
      type: 'string',
      enum: [...NOTIFICATION_KINDS],
      default: 'ARRIVAL',
      description: 'Which email to show.',
    }),
    language: Type.Optional(
      Type.String({
        pattern: LANGUAGE_PATTERN,
        description: 'The recipient’s language (a contact’s own); default: the settings’ `language`.',
      }),
    ),
  },
  { additionalProperties: false },
)

const PreviewSchema = Type.Object(
  {
    kind: Type.String(),
    language: Type.String(),
    subject: Type.String(),
    text: Type.String(),
    html: Type.String({ description: 'The HTML part; the pickup code’s QR image is inlined as a data: URL.' }),
  },
  { title: 'NotificationPreview' },
)

/** The parcel every preview shows: one of each thing a template can print (a code, a shelf, hours, a flag). */
const SAMPLE_PARCEL: PackageView = {
  packageId: 'PKGSAMPLE0001',
  trackingNumber: '1Z999AA10123456784',
  currentStatus: 'RECEIVED',
  carrier: { name: 'UPS', carrierId: 'UPS' },
  sender: { name: 'Example Store' },
  currentLocation: {
    inboundSiteId: 'site_sample',
    name: 'Shelf A-3',
    locationHierarchy: 'Mailroom 1| Building 1| Shelf A-3',
    topTier: { inboundSiteId: 'site_sample_top', name: 'Mailroom 1' },
  },
  packageLocation: 'Bin 4',
  insertTimestamp: '2026-11-27T09:00:00.000Z',
  deliveryTime: '2026-11-28T10:30:00.000Z',
  pickupCode: 'K7M2QD',
  flags: ['FRAGILE'],
}

/** The sample parcel's place, worded as a real one is ("Mailroom 1, Building 1 — shelf A-3"). */
const SAMPLE_PLACES = new Map([
  [
    'site_sample',
    placeOf(
      [
        { name: 'Mailroom 1', type: 'site' },
        { name: 'Building 1', type: 'building' },
        { name: 'A-3', type: 'shelf' },
      ],
      'UTC',
    ),
  ],
])

/**
 * POST /api/v1/notifications/settings/preview (issue 25.6): the settings being edited (not yet
 * saved) → one email rendered from a sample parcel by the renderer that sends them, after the checks
 * and template limits of PUT /settings (the same 400s, naming the same fields). Admin only, like
 * the PUT (access/api/console-access.ts).
 */
export const notificationsPreviewRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/api/v1/notifications/settings/preview',
    {
      schema: {
        tags: ['notifications'],
        security: [{ bearerAuth: [] }],
        summary: 'Preview an email with these settings',
        description:
          'The body is what PUT /api/v1/notifications/settings takes, checked the same way (a refused template is a 400 naming it); nothing is saved. The answer is the email of `kind` for a sample parcel (UPS, Shelf A-3 of Mailroom 1, pickup code K7M2QD) to a sample recipient, rendered as it would be sent.',
        querystring: PreviewQuerySchema,
        body: NotificationSettingsSchema,
        response: { 200: PreviewSchema, ...errorResponses(400, 415) },
      },
    },
    async (request) => preview(request.body, request.query),
  )
}

async function preview(
  settings: Static<typeof NotificationSettingsSchema>,
  q: Static<typeof PreviewQuerySchema>,
): Promise<Static<typeof PreviewSchema>> {
  checkSettings(settings)
  const language = q.language ?? settings.language ?? 'en'
  const now = new Date(Date.parse('2026-11-29T09:00:00.000Z'))
  const mail = await composeEmail({
    notificationId: 'ntf_preview',
    kind: q.kind,
    step: 1,
    to: 'alex.sample@example.org',
    recipientName: 'Alex Sample',
    packages: [SAMPLE_PARCEL],
    settings,
    unsubscribeUrl: 'https://mailroom.example/notifications/unsubscribe?t=sample',
    messageIdDomain: 'mailroom.example',
    now,
    collector: { name: 'Alex Sample', onBehalf: false },
    openingHours: 'Mon–Fri 08:00–18:00',
    language,
    places: SAMPLE_PLACES,
  })
  // The QR image travels as an inline attachment; in a page it is a data: URL.
  let html = mail.html
  for (const a of mail.attachments)
    html = html.split(`cid:${a.cid}`).join(`data:${a.contentType};base64,${a.content.toString('base64')}`)
  return { kind: q.kind, language, subject: mail.subject, text: mail.text, html }
}
