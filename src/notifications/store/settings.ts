import type { Executor } from '../../platform/db/transaction.js'
import './tables.js'

export interface SettingsRow {
  sub_id: string
  enabled: boolean
  arrival_batch_seconds: number
  reminder_after_hours: number[]
  final_notice_after_hours: number | null
  /** Migration 0026. */
  language: string
  templates: Record<string, { subject?: string; text?: string; html?: string }>
  /** Migration 0077: perishables' reminder interval; null: none. */
  perishable_reminder_after_hours: number | null
  updated_at: Date
}

const COLUMNS = [
  'sub_id',
  'enabled',
  'arrival_batch_seconds',
  'reminder_after_hours',
  'final_notice_after_hours',
  'language',
  'templates',
  'perishable_reminder_after_hours',
  'updated_at',
] as const

export async function findSettings(db: Executor, subId: string): Promise<SettingsRow | undefined> {
  return db.selectFrom('notification_settings').select(COLUMNS).where('sub_id', '=', subId).executeTakeFirst()
}

export async function upsertSettings(db: Executor, row: SettingsRow): Promise<void> {
  const values = {
    ...row,
    reminder_after_hours: JSON.stringify(row.reminder_after_hours),
    templates: JSON.stringify(row.templates),
  }
  const { sub_id: _sub, ...set } = values
  await db
    .insertInto('notification_settings')
    .values(values)
    .onConflict((oc) => oc.column('sub_id').doUpdateSet(set))
    .execute()
}

/** Subscriptions with reminders or a final notice configured: the reminder job's work list. */
export async function settingsWithReminders(db: Executor): Promise<SettingsRow[]> {
  const rows = await db.selectFrom('notification_settings').select(COLUMNS).where('enabled', '=', true).execute()
  return rows.filter((r) => r.reminder_after_hours.length > 0 || r.final_notice_after_hours !== null)
}
