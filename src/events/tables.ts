import type { ColumnType } from 'kysely'
import type { WebhookVariant } from './variants.js'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string, string>

/** The outbox (migration 0005): one row per event, in the writer's transaction; consumers read it. */
export interface PackageEventTable {
  event_id: string
  sub_id: string
  package_id: string
  variant: WebhookVariant
  event_name: string
  sequence: number
  occurred_at: Timestamp
  data: Json<Record<string, unknown>>
  dispatched_at: Timestamp | null
  /** Migration 0040: the writing transaction (xid8 as text), set by the column's default. */
  tx_id: ColumnType<string, never, never>
  /** Migration 0040: consumed by the notifications (events/cursors.ts). */
  notified_at: ColumnType<Date | null, Date | string | undefined, Date | string | null>
}

declare module '../platform/db/tables.js' {
  interface Database {
    package_events: PackageEventTable
  }
}
