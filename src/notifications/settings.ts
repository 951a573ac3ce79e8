import { ValidationErrors } from '../shared/errors.js'
import { NOTIFICATION_KINDS } from './kinds.js'
import type { NotificationSettings } from './notifications.schemas.js'
import type { SettingsRow } from './settings.repo.js'
import { templateProblem } from './templates.js'

/** A subscription that never set anything: on, arrivals batched for a minute, no reminders (opt in). */
export const DEFAULT_SETTINGS: NotificationSettings = {
  enabled: true,
  arrivalBatchSeconds: 60,
  reminderAfterHours: [],
  finalNoticeAfterHours: null,
  templates: {},
}

export function effectiveSettings(row: SettingsRow | undefined): NotificationSettings {
  if (!row) return DEFAULT_SETTINGS
  return {
    enabled: row.enabled,
    arrivalBatchSeconds: row.arrival_batch_seconds,
    reminderAfterHours: row.reminder_after_hours,
    finalNoticeAfterHours: row.final_notice_after_hours,
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
  for (const kind of NOTIFICATION_KINDS)
    for (const part of ['subject', 'text', 'html'] as const) {
      const source = s.templates[kind]?.[part]
      const problem = source === undefined ? undefined : templateProblem(source)
      if (problem)
        problems.push({ field: `templates.${kind}.${part}`, description: `templates.${kind}.${part} ${problem}` })
    }
  if (problems.length > 0) throw new ValidationErrors(problems)
}
