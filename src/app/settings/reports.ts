import { int, section, text } from './define.js'
import type { Env } from './index.js'

/** The daily summary email to admins (docs/shelves-and-reports.md). */
export const reportsSettings = section({
  title: 'Report summary email',
  keys: {
    REPORT_SUMMARY_HOUR: int({
      minimum: 0,
      maximum: 23,
      default: 7,
      description:
        "local hour (0-23, in REPORT_SUMMARY_TIME_ZONE) from which each opted-in admin gets the day before's summary; sent by SMTP_URL",
    }),
    REPORT_SUMMARY_TIME_ZONE: text({
      pattern: '^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$',
      default: 'UTC',
      description:
        "IANA time zone (e.g. America/Chicago) of REPORT_SUMMARY_HOUR and of the day a summary covers; each site's counts are of its own location's day",
    }),
    REPORT_SUMMARY_UNCLAIMED_DAYS: int({
      minimum: 1,
      maximum: 365,
      default: 7,
      description: 'a parcel waiting this many days or more is counted as unclaimed in the summary',
    }),
  },
})

export interface ReportsConfig {
  reportSummary: Readonly<{ hour: number; timeZone: string; unclaimedDays: number }>
}

export function reportsConfig(env: Env): ReportsConfig {
  return {
    reportSummary: Object.freeze({
      hour: env.REPORT_SUMMARY_HOUR,
      timeZone: env.REPORT_SUMMARY_TIME_ZONE,
      unclaimedDays: env.REPORT_SUMMARY_UNCLAIMED_DAYS,
    }),
  }
}

/** A zone the runtime does not know is refused at boot, not met in the first summary. */
export function reportsProblems(env: Env): string[] {
  try {
    new Intl.DateTimeFormat('en', { timeZone: env.REPORT_SUMMARY_TIME_ZONE })
    return []
  } catch {
    return [
      `REPORT_SUMMARY_TIME_ZONE=${JSON.stringify(env.REPORT_SUMMARY_TIME_ZONE)}: is not an IANA time zone (e.g. Europe/London)`,
    ]
  }
}
