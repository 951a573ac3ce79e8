import type { ColumnType, Selectable } from 'kysely'
import type { NotificationChannel, NotificationKind, NotificationStatus } from '../model/kinds.js'
import type { ChannelChoices } from '../model/channels.js'

// The notification tables (migration 0016) as Kysely sees them, merged into the shared Database
// interface here: the domain owns its table types as it owns its migration.
type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string, string>

export interface NotificationSettingsTable {
  sub_id: string
  enabled: boolean
  arrival_batch_seconds: number
  reminder_after_hours: Json<number[]>
  final_notice_after_hours: number | null
  language: ColumnType<string, string | undefined, string>
  templates: Json<Record<string, { subject?: string; text?: string; html?: string }>>
  /** Migration 0077 (issue 30): perishables are reminded every this many hours; null: as the others. */
  perishable_reminder_after_hours: ColumnType<number | null, number | null | undefined, number | null>
  updated_at: Timestamp
}

export interface NotificationTable {
  notification_id: string
  sub_id: string
  kind: NotificationKind
  channel: ColumnType<NotificationChannel, NotificationChannel | undefined, NotificationChannel>
  contact_id: string
  to_address: string
  step: number
  status: NotificationStatus
  attempts: number
  last_error: string | null
  next_attempt_at: Timestamp
  locked_until: Timestamp | null
  locked_by: string | null
  sent_at: Timestamp | null
  created_at: Timestamp
  updated_at: Timestamp
  /** Migration 0041: the arrival email a REMINDER or FINAL_NOTICE reminds of (null: others, and older reminders). */
  reminds_id: ColumnType<string | null, string | null | undefined, string | null>
  /** Migration 0068: a text sent beside its parent's email (the recipient chose both). */
  parent_id: ColumnType<string | null, string | null | undefined, string | null>
  /** The provider's id of a text (Twilio's MessageSid, SMPP's message_id): delivery receipts find the row by it. */
  provider_message_id: ColumnType<string | null, string | null | undefined, string | null>
  /** A delivery receipt's verdict: delivered, undelivered, or the provider's in-between word (queued, sent). */
  delivery_status: ColumnType<string | null, string | null | undefined, string | null>
  delivered_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  /** Migration 0075: a text handed to its provider (set before the request): claimed again with it, the text is settled 'unconfirmed', never sent twice. */
  send_started_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

/** Migration 0068: the facility's SMS provider and channel choices. */
export interface SmsSettingsTable {
  sub_id: string
  provider: 'none' | 'messages' | 'smpp'
  url: string | null
  account: string | null
  secret_sealed: string | null
  from_number: string | null
  sender_name: string | null
  channels: Json<ChannelChoices>
  quiet_start: string | null
  quiet_end: string | null
  updated_at: Timestamp
}

export interface RecipientChannelsTable {
  sub_id: string
  contact_id: string
  kinds: Json<Partial<Record<NotificationKind, NotificationChannel[]>>>
  sms_opt_in_at: Timestamp | null
  sms_opt_in_source: string | null
  updated_at: Timestamp
}

export interface SmsStopTable {
  sub_id: string
  phone: string
  stopped: boolean
  keyword: string
  changed_at: Timestamp
}

export interface SmsInboundTable {
  sub_id: string
  message_id: string
  phone: string
  body: string
  received_at: Timestamp
}

export interface NotificationPackageTable {
  notification_id: string
  package_id: string
  sub_id: string
  kind: NotificationKind
  step: number
  created_at: Timestamp
}

declare module '../../platform/db/tables.js' {
  interface Database {
    notification_settings: NotificationSettingsTable
    notifications: NotificationTable
    notification_packages: NotificationPackageTable
    notification_sms_settings: SmsSettingsTable
    notification_recipient_channels: RecipientChannelsTable
    notification_sms_stops: SmsStopTable
    notification_sms_inbound: SmsInboundTable
  }
}

export type NotificationRow = Selectable<NotificationTable>
