import { Type, type Static } from '@sinclair/typebox'
import { GROUPINGS, PERIODS } from '../model/report.js'

const Day = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  description: "A date, YYYY-MM-DD: each site's own day (its location's time zone).",
})
const enumOf = <T extends readonly string[]>(values: T, description: string, dflt: T[number]) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], default: dflt, description })

export const ReportQuerySchema = Type.Object({
  from: Type.Optional(Day),
  to: Type.Optional(Day),
  period: Type.Optional(enumOf(PERIODS, '`day`, or `week` (ISO weeks, by their Monday).', 'day')),
  groupBy: Type.Optional(enumOf(GROUPINGS, 'What the volume rows are per: `site` or `carrier`.', 'site')),
  inboundSiteId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'Only this site and the sites under it (the oldest waiting: at most 200 sites under it, else a 400 naming this field). Notifications are counted for all sites.',
    }),
  ),
  oldest: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'How many of the oldest waiting parcels.' }),
  ),
})
export type ReportQuery = Static<typeof ReportQuerySchema>

const Hours = Type.Union([Type.Number(), Type.Null()], { description: 'Hours; null with no hand-over.' })
export const VolumeRowSchema = Type.Object({
  period: Type.String(),
  groupId: Type.String({ description: 'The site or carrier id; empty for none.' }),
  groupName: Type.String(),
  received: Type.Integer(),
  handedOver: Type.Integer(),
})
export const DwellRowSchema = Type.Object({
  period: Type.String(),
  handedOver: Type.Integer(),
  medianHours: Hours,
  p90Hours: Hours,
})
export const ClerkRowSchema = Type.Object({
  clerk: Type.String(),
  received: Type.Integer(),
  handedOver: Type.Integer(),
})
export const OldestRowSchema = Type.Object({
  packageId: Type.String(),
  trackingNumber: Type.String(),
  status: Type.String(),
  inboundSiteId: Type.String({ description: 'Its site; empty for none.' }),
  siteName: Type.String(),
  receivedAt: Type.String({ format: 'date-time', description: 'When its record was made.' }),
  waitingDays: Type.Number({ description: 'Days from receivedAt to now, to a tenth.' }),
})
export const NotificationDayRowSchema = Type.Object({
  day: Type.String({ description: 'The UTC day the notifications were made.' }),
  sent: Type.Integer(),
  failed: Type.Integer(),
})
export const ReportSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  period: Type.String(),
  groupBy: Type.String(),
  volume: Type.Array(VolumeRowSchema),
  dwell: Type.Array(DwellRowSchema),
  clerks: Type.Array(ClerkRowSchema),
  oldestWaiting: Type.Array(OldestRowSchema, {
    description:
      'The parcels waiting longest now (not archived, not handed over or returned, arrived), oldest first, under the site filter; from and to do not apply.',
  }),
  notifications: Type.Array(NotificationDayRowSchema, {
    description:
      'Per day from..to with any, the notifications made that day that were sent (a text handed to its provider unconfirmed included) and that failed; of all sites, whatever the site filter.',
  }),
})
export type Report = Static<typeof ReportSchema>

export const REPORT_TABLES = ['volume', 'dwell', 'clerks', 'oldest', 'notifications'] as const
export const TableParams = Type.Object({
  table: Type.Unsafe<(typeof REPORT_TABLES)[number]>({ type: 'string', enum: [...REPORT_TABLES] }),
})

export const SummaryEmailSchema = Type.Object({
  hour: Type.Integer({
    description: 'REPORT_SUMMARY_HOUR: the local hour from which the summary of the day before goes.',
  }),
  timeZone: Type.String({ description: 'REPORT_SUMMARY_TIME_ZONE: the zone of that hour and of the day summed up.' }),
  unclaimedDays: Type.Integer({
    description: 'REPORT_SUMMARY_UNCLAIMED_DAYS: waiting this many days counts as unclaimed.',
  }),
  recipients: Type.Array(Type.Object({ userId: Type.String(), email: Type.String() }), {
    description: 'The active admins who opted in.',
  }),
})
export type SummaryEmail = Static<typeof SummaryEmailSchema>
export const SummaryRecipientParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 64 }) })
export const SummaryRecipientBody = Type.Object({
  enabled: Type.Boolean({ description: 'true: this admin gets the daily summary; false: no longer.' }),
})
