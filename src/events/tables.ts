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
}

declare module '../platform/db/tables.js' {
  interface Database {
    package_events: PackageEventTable
  }
}

/** Consumer cursors (migration 0040): each consumer's position in the outbox, moved in its own transactions. */
export interface EventCursorTable {
  consumer: string
  /** xid8, as text. */
  tx_id: string
  event_id: string
  updated_at: Timestamp
}

declare module '../platform/db/tables.js' {
  interface Database {
    event_cursors: EventCursorTable
  }
}
