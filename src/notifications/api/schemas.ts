import { LANGUAGE_PATTERN } from '../../platform/http/schemas.js'
import { Type, type Static } from '@sinclair/typebox'
import { NOTIFICATION_CHANNELS, NOTIFICATION_KINDS, NOTIFICATION_STATUSES } from '../model/kinds.js'
import { TEMPLATE_LIMITS } from '../model/template-limits.js'

const oneOf = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) })
const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })

const Template = Type.Object(
  {
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 20_000 })),
    html: Type.Optional(Type.String({ minLength: 1, maxLength: 50_000 })),
  },
  {
    additionalProperties: false,
    description: [
      'Mustache templates ({{variable}} is HTML-escaped, {{#packages}}…{{/packages}} repeats per parcel); an absent part uses the shipped default. docs/notifications.md lists the variables.',
      `Limits, checked when saved (400 naming the template and the limit): sections nest at most ${TEMPLATE_LIMITS.sectionDepth} deep; \`{{#packages}}\` is never inside another \`{{#packages}}\`; each template is test-rendered with a sample of 1 and of ${TEMPLATE_LIMITS.sampleParcels} parcels and must render within ${TEMPLATE_LIMITS.renderedChars.subject} characters (subject), ${TEMPLATE_LIMITS.renderedChars.text} (text), ${TEMPLATE_LIMITS.renderedChars.html} (html), ${TEMPLATE_LIMITS.steps} steps and ${TEMPLATE_LIMITS.renderMs} ms.`,
      'The same budget applies when an email is sent: one that exceeds it (more parcels than the sample) fails like a refused send, with the reason in `lastError`.',
    ].join(' '),
  },
)

const Hours = Type.Number({ exclusiveMinimum: 0, maximum: 8_760 })

const kindTemplates = {
  ARRIVAL: Type.Optional(Template),
  REMINDER: Type.Optional(Template),
  FINAL_NOTICE: Type.Optional(Template),
  PICKED_UP: Type.Optional(Template),
}

export const NotificationSettingsSchema = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Send notification emails for this subscription (default true).' }),
    arrivalBatchSeconds: Type.Integer({
      minimum: 0,
      maximum: 86_400,
      description:
        'Arrivals for one recipient within this many seconds of the first share one email; 0 sends each at once. Default 60.',
    }),
    reminderAfterHours: Type.Array(Hours, {
      maxItems: 10,
      description:
        'A REMINDER this many hours after the arrival email, per step, while the package waits (fractions allowed, ascending).',
    }),
    finalNoticeAfterHours: Type.Union([Hours, Type.Null()], {
      description: 'A FINAL_NOTICE (before return to sender) this many hours after the arrival; null: none.',
    }),
    perishableReminderAfterHours: Type.Optional(
      Type.Union([Hours, Type.Null()], {
        description:
          'An extension (issue 30): parcels flagged PERISHABLE are reminded sooner. Reminder step i of an arrival email with a perishable parcel still waiting is due i times this many hours after the email (or at the normal step, if sooner); shorter than the first of reminderAfterHours, which it needs. Absent or null: perishables follow the normal schedule.',
      }),
    ),
    language: Type.Optional(
      Type.String({
        pattern: LANGUAGE_PATTERN,
        description:
          'The language of the emails (default `en`), and of the per-kind templates at the top of `templates`. A contact’s own `language` wins over it. Shipped templates exist for `en` and `fr`; another language uses its own templates where given, else the English ones.',
      }),
    ),
    templates: Type.Object(kindTemplates, {
      additionalProperties: false,
      patternProperties: {
        [LANGUAGE_PATTERN]: Type.Object(kindTemplates, {
          additionalProperties: false,
          description: 'The templates of one language, per kind.',
        }),
      },
      description: [
        'Overrides of the shipped templates, per kind (`ARRIVAL`, …: in the subscription’s `language`) and per language (`{"fr": {"ARRIVAL": {subject, text, html}}}`).',
        'Each part of an email in language L comes from the first that has it: `templates[L][kind]`, `templates[kind]` (only when L is the subscription’s `language`: those are written in it), the shipped template of L, the shipped English one.',
      ].join(' '),
    }),
  },
  { additionalProperties: false, title: 'NotificationSettings' },
)
export type NotificationSettings = Static<typeof NotificationSettingsSchema>

export const NotificationSchema = Type.Object(
  {
    notificationId: Type.String(),
    kind: oneOf(NOTIFICATION_KINDS),
    channel: oneOf(
      NOTIFICATION_CHANNELS,
      'email, or sms: a text (docs/sms.md). A recipient who chose both has a text beside the email, with `parentId` naming it.',
    ),
    to: Type.String({ description: 'The recipient address: an email address, or a phone number for a text.' }),
    parentId: Type.Optional(
      Type.String({ description: 'A text sent beside this email notification (the recipient chose both).' }),
    ),
    deliveryStatus: Type.Optional(
      Type.String({
        description:
          "A text's latest delivery receipt from the provider: delivered, undelivered, or the provider's word in between (queued, sent, accepted).",
      }),
    ),
    deliveredAt: Type.Optional(Type.String({ format: 'date-time' })),
    contactId: Type.String(),
    status: oneOf(
      NOTIFICATION_STATUSES,
      'pending: waiting to be sent (batching, retrying, or a text waiting for quiet hours to end); suppressed: not sent on purpose (no SMTP or SMS provider configured, notifications disabled, the contact unsubscribed or replied STOP, nothing left to remind of); unconfirmed: a text handed to its provider whose answer was not recorded (the worker stopped, or the database failed meanwhile): it may have been sent, and is not sent again (docs/sms.md).',
    ),
    step: Type.Optional(Type.Integer({ description: 'REMINDER: which step (1 for the first).' })),
    attempts: Type.Integer(),
    lastError: Type.Optional(Type.String()),
    sentAt: Type.Optional(Type.String({ format: 'date-time' })),
    createdAt: Type.String({ format: 'date-time' }),
    packageIds: Type.Array(Type.String()),
  },
  { title: 'Notification' },
)
export type Notification = Static<typeof NotificationSchema>

export const ListNotificationsQuerySchema = Type.Object(
  {
    packageId: Type.Optional(Id),
    contactId: Type.Optional(Id),
    status: Type.Optional(oneOf(NOTIFICATION_STATUSES)),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  },
  { additionalProperties: false },
)
export type ListNotificationsQuery = Static<typeof ListNotificationsQuerySchema>

export const NotificationListSchema = Type.Object({ notifications: Type.Array(NotificationSchema) })
export const NotificationIdParams = Type.Object({ notificationId: Id })
export const UnsubscribeQuerySchema = Type.Object({ t: Type.String({ minLength: 1, maxLength: 500 }) })
