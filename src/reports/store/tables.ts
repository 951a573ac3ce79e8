import type { ColumnType } from 'kysely'

// The report tallies (migrations 0072, 0080) as Kysely sees them, merged into the shared Database
// interface here: the domain owns its table types as it owns its migrations.
type Day = ColumnType<string, string, string>

/** Narrow signed facts the triggers append in the writer's transaction. */
interface ReportTallyDeltaTable {
  sub_id: string
  day: Day
  kind: string
  site_id: string
  carrier_id: string
  bucket: number
  n: ColumnType<string, number, number>
}

/** The folded facts: one wide row per day at each grain a report reads (migration 0080). */
interface ReportDayTable {
  sub_id: string
  grain: string
  day: Day
  key: string
  key2: string
  a: ColumnType<string, number, number>
  b: ColumnType<string, number, number>
  h: ColumnType<string[] | null, number[] | null, number[] | null>
}

/** Admins who get the daily summary email (migration 0080). */
interface ReportSummaryOptinTable {
  sub_id: string
  user_id: string
  created_at: ColumnType<Date, Date, Date>
}

/** One admin's summary of one day: claimed ('sending') before the send. */
interface ReportSummarySendTable {
  sub_id: string
  user_id: string
  day: Day
  status: 'sending' | 'sent' | 'unconfirmed' | 'failed'
  attempts: number
  claimed_until: ColumnType<Date, Date, Date>
  sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  last_error: string | null
}

declare module '../../platform/db/tables.js' {
  interface Database {
    report_days: ReportDayTable
    report_tally_deltas: ReportTallyDeltaTable
    report_summary_optins: ReportSummaryOptinTable
    report_summary_sends: ReportSummarySendTable
  }
}

export {}
