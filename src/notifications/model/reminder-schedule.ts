/** One pass of the reminder job: a step of one kind, due this many hours after the arrival email. */
export interface ReminderPass {
  kind: 'REMINDER' | 'FINAL_NOTICE'
  step: number
  afterHours: number
  /** Only arrival emails with a perishable parcel still waiting (issue 30). */
  perishableOnly: boolean
}

/**
 * Pure: the passes of the reminder job for one subscription's settings, in the order it runs them:
 * the final notice first, then the steps from the last, so that a parcel owed several gets the
 * latest only. A perishable parcel is reminded sooner (issue 30): with `perishableReminderAfterHours`
 * set, reminder step i of an arrival email with a perishable parcel waiting is due i times that
 * interval after the email, or at the normal step if that comes sooner; the final notice keeps its time.
 */
export function reminderSchedule(s: {
  reminderAfterHours: readonly number[]
  finalNoticeAfterHours: number | null
  perishableReminderAfterHours?: number | null
}): ReminderPass[] {
  const out: ReminderPass[] = []
  if (s.finalNoticeAfterHours !== null)
    out.push({ kind: 'FINAL_NOTICE', step: 0, afterHours: s.finalNoticeAfterHours, perishableOnly: false })
  const every = s.perishableReminderAfterHours ?? null
  for (let i = s.reminderAfterHours.length; i >= 1; i--) {
    const afterHours = s.reminderAfterHours[i - 1]!
    out.push({ kind: 'REMINDER', step: i, afterHours, perishableOnly: false })
    if (every !== null && i * every < afterHours)
      out.push({ kind: 'REMINDER', step: i, afterHours: i * every, perishableOnly: true })
  }
  return out
}
