import { ValidationErrors } from '../../platform/kit/errors.js'
import { NOTIFICATION_KINDS } from './kinds.js'
import type { NotificationSettings } from '../api/schemas.js'
import type { SettingsRow } from '../store/settings.js'
import { templateProblem } from './templates.js'

/** A subscription that never set anything: on, arrivals batched for a minute, no reminders (opt in). */
export const DEFAULT_SETTINGS: NotificationSettings = {
  enabled: true,
  arrivalBatchSeconds: 60,
  reminderAfterHours: [],
  finalNoticeAfterHours: null,
  perishableReminderAfterHours: null,
  language: 'en',
  templates: {},
}

export function effectiveSettings(row: SettingsRow | undefined): NotificationSettings {
  if (!row) return DEFAULT_SETTINGS
  return {
    enabled: row.enabled,
    arrivalBatchSeconds: row.arrival_batch_seconds,
    reminderAfterHours: row.reminder_after_hours,
    finalNoticeAfterHours: row.final_notice_after_hours,
    perishableReminderAfterHours: row.perishable_reminder_after_hours,
    language: row.language,
    templates: row.templates,
  }
}

/** What the schema cannot say: the steps ascend and come before the final notice; every template parses and escapes. */
export function checkSettings(s: NotificationSettings): void {
  const problems: Array<{ field: string; description: string }> = []
  s.reminderAfterHours.forEach((h, i) => {
    if (i > 0 && h <= s.reminderAfterHours[i - 1]!)
      problems.push({ field: `reminderAfterHours[${i}]`, description: 'reminderAfterHours must be strictly ascending' })
  })
  const last = s.reminderAfterHours.at(-1)
  if (s.finalNoticeAfterHours !== null && last !== undefined && s.finalNoticeAfterHours <= last)
    problems.push({
      field: 'finalNoticeAfterHours',
      description: 'finalNoticeAfterHours must come after the last reminder',
    })
  const every = s.perishableReminderAfterHours ?? null
  const first = s.reminderAfterHours[0]
  if (every !== null && (first === undefined || every >= first))
    problems.push({
      field: 'perishableReminderAfterHours',
      description:
        first === undefined
          ? 'perishableReminderAfterHours brings reminders forward: set reminderAfterHours too'
          : 'perishableReminderAfterHours must be shorter than the first reminder (reminderAfterHours[0])',
    })
  // The default language's templates at the top, each other language's under its tag.
  const sets: Array<[string, Partial<Record<string, Partial<Record<'subject' | 'text' | 'html', string>>>>]> = [
    ['templates', s.templates],
    ...Object.entries(s.templates)
      .filter(([key]) => !(NOTIFICATION_KINDS as readonly string[]).includes(key))
      .map(([language, set]) => [`templates.${language}`, set as Record<string, never>] as [string, never]),
  ]
  for (const [at, set] of sets)
    for (const kind of NOTIFICATION_KINDS)
      for (const part of ['subject', 'text', 'html'] as const) {
        const source = set[kind]?.[part]
        const problem = source === undefined ? undefined : templateProblem(source, part)
        if (problem) problems.push({ field: `${at}.${kind}.${part}`, description: `${at}.${kind}.${part} ${problem}` })
      }
  if (problems.length > 0) throw new ValidationErrors(problems)
}
