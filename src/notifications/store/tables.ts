import type { ColumnType, Selectable } from 'kysely'
import type { NotificationKind, NotificationStatus } from '../model/kinds.js'

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
  updated_at: Timestamp
}

export interface NotificationTable {
  notification_id: string
  sub_id: string
  kind: NotificationKind
  channel: 'email'
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
  }
}

export type NotificationRow = Selectable<NotificationTable>
