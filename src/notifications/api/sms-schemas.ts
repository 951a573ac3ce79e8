import { Type, type Static } from '@sinclair/typebox'
import { NOTIFICATION_CHANNELS, NOTIFICATION_KINDS } from '../model/kinds.js'

const Channel = Type.Unsafe<(typeof NOTIFICATION_CHANNELS)[number]>({
  type: 'string',
  enum: [...NOTIFICATION_CHANNELS],
})
const Channels = Type.Array(Channel, { uniqueItems: true, maxItems: NOTIFICATION_CHANNELS.length })
const PerKind = Type.Object(Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, Type.Optional(Channels)])), {
  additionalProperties: false,
})
const HHMM = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: 'HH:MM, 24-hour, local to the site.',
})

const ChannelChoicesSchema = Type.Object(
  {
    allowed: Type.Array(Channel, { uniqueItems: true, maxItems: NOTIFICATION_CHANNELS.length }),
    defaults: Type.Object(Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, Channels])), {
      additionalProperties: false,
    }),
  },
  {
    additionalProperties: false,
    description:
      'The channels recipients may have (`allowed`), and those each kind goes by when a recipient chose none (`defaults`, within `allowed`). A text also needs the recipient to have opted in and not replied STOP; a recipient left with no channel is emailed.',
  },
)

const Provider = Type.Unsafe<'none' | 'messages' | 'smpp'>({
  type: 'string',
  enum: ['none', 'messages', 'smpp'],
  description:
    'messages: the Twilio-style Messages REST API (Twilio, SignalWire, …); smpp: an SMPP 3.4 SMSC (transceiver bind); none: no texts.',
})

const settingsMembers = {
  provider: Provider,
  url: Type.Optional(
    Type.String({
      maxLength: 500,
      description:
        'messages: the API base, e.g. https://api.twilio.com/2010-04-01 (requests go to {url}/Accounts/{account}/Messages.json); smpp: smpp://host:2775 or ssmpp://host:3550.',
    }),
  ),
  account: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Account SID / project id, or the SMPP system_id.' }),
  ),
  from: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'The sender: a number in E.164 (+15551234567) or an alphanumeric sender id.',
    }),
  ),
  senderName: Type.Optional(
    Type.String({ minLength: 1, maxLength: 40, description: 'How replies to STOP/START/HELP name the facility.' }),
  ),
  channels: ChannelChoicesSchema,
  quietHours: Type.Union([Type.Object({ start: HHMM, end: HHMM }, { additionalProperties: false }), Type.Null()], {
    description:
      'Texts due between start and end (in the site’s time zone; 21:00–08:00 spans midnight) wait until end. null: none.',
  }),
}

export const SmsSettingsInputSchema = Type.Object(
  {
    ...settingsMembers,
    secret: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          'Auth token, or the SMPP password. Write-only, sealed at rest; absent: the stored one is kept for the same provider at the same host. A `url` pointing to another scheme, host or port without it is a 400 naming `secret`: the stored one is never sent to another host.',
      }),
    ),
  },
  { additionalProperties: false, title: 'SmsSettingsInput' },
)
export type SmsSettingsInput = Static<typeof SmsSettingsInputSchema>

export const SmsSettingsSchema = Type.Object(
  {
    ...settingsMembers,
    secretSet: Type.Boolean({ description: 'A secret is stored (it is never shown).' }),
    inboundUrl: Type.String({ description: 'Messages API: the URL to give the provider for incoming messages.' }),
    statusUrl: Type.String({
      description: 'Messages API: where delivery receipts are posted (sent as StatusCallback).',
    }),
  },
  { title: 'SmsSettings' },
)
export type SmsSettings = Static<typeof SmsSettingsSchema>

export const RecipientChannelsInputSchema = Type.Object(
  {
    kinds: PerKind,
    sms: Type.Object(
      {
        optedIn: Type.Boolean(),
        source: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 200,
            description: 'Where the consent was given (required when opting in): "desk form 2026-11", "portal".',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    title: 'RecipientChannelsInput',
    description:
      'The recipient’s channels per kind (a kind left out follows the facility’s default) and their consent to texts.',
  },
)
export type RecipientChannelsInput = Static<typeof RecipientChannelsInputSchema>

export const RecipientChannelsSchema = Type.Object(
  {
    contactId: Type.String(),
    kinds: PerKind,
    sms: Type.Object({
      optedIn: Type.Boolean(),
      optedInAt: Type.Optional(Type.String({ format: 'date-time' })),
      source: Type.Optional(Type.String()),
      phone: Type.Optional(Type.String({ description: 'The contact’s phone as texts use it.' })),
      stopped: Type.Boolean({ description: 'The number replied STOP (and not START since): no texts.' }),
      stopChangedAt: Type.Optional(Type.String({ format: 'date-time' })),
    }),
  },
  { title: 'RecipientChannels' },
)
export type RecipientChannels = Static<typeof RecipientChannelsSchema>

export const ContactIdParams = Type.Object({
  contactId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
})
export const SubIdParams = Type.Object({
  subId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
})
/** What a Messages API provider posts (Twilio's names); other members are accepted and signed over. */
export const ProviderFormSchema = Type.Record(Type.String(), Type.String())
