import type { ColumnType, Selectable } from 'kysely'
import type { WebhookVariant } from '../../events/index.js'

// The webhook tables (migrations 0005 and 0008) as Kysely sees them. They merge into the shared Database
// interface here, so the domain owns its table types the way it owns its migration.
type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string, string>

export type ConfigStatus = 'active' | 'in-active'
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled'
export type AuthType = 'custom' | 'basic' | 'oauth2' | 'none'

/** The non-secret fields of a configuration's auth; the secret itself is sealed apart. */
export interface AuthPublic {
  headerName?: string
  username?: string
  tokenUrl?: string
  clientId?: string
  scope?: string
}

export interface WebhookConfigTable {
  config_id: string
  sub_id: string
  variant: WebhookVariant
  name: string
  url: string
  events: ColumnType<string[], string[], string[]>
  timeout_seconds: number
  status: ConfigStatus
  auth_type: AuthType
  auth_public: Json<AuthPublic>
  auth_secret_sealed: string | null
  signing_secret_sealed: string
  previous_secret_sealed: string | null
  previous_secret_expires_at: Timestamp | null
  /** First failed attempt of the current streak; 5 days of continuous failure disable the configuration. */
  failing_since: Timestamp | null
  /** Latest failed attempt of the current streak. */
  last_failure_at: Timestamp | null
  /** Some pending deliveries may never be claimed (deleted, in-active, events dropped): the sweep's work list. */
  sweep_requested_at: Timestamp | null
  disabled_reason: 'gone' | 'failing' | null
  disabled_at: Timestamp | null
  created_at: Timestamp
  updated_at: Timestamp
  deleted_at: Timestamp | null
}

export interface WebhookDeliveryTable {
  delivery_id: string
  sub_id: string
  config_id: string
  event_id: string
  event_name: string
  package_id: string | null
  sequence: number | null
  occurred_at: Timestamp
  status: DeliveryStatus
  attempts: number
  next_attempt_at: Timestamp
  /** Retries continue at least until then: 72 h after the first attempt; null until that attempt. */
  give_up_at: Timestamp | null
  locked_until: Timestamp | null
  locked_by: string | null
  last_status_code: number | null
  last_error: string | null
  delivered_at: Timestamp | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface WebhookAttemptTable {
  attempt_id: string
  delivery_id: string
  sub_id: string
  config_id: string
  attempt_no: number
  started_at: Timestamp
  latency_ms: number | null
  status_code: number | null
  succeeded: boolean
  error_class: string | null
  error: string | null
  response_body: string | null
}

declare module '../../platform/db/tables.js' {
  interface Database {
    webhook_configs: WebhookConfigTable
    webhook_deliveries: WebhookDeliveryTable
    webhook_attempts: WebhookAttemptTable
  }
}

export type WebhookConfigRow = Selectable<WebhookConfigTable>
export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>
export type WebhookAttemptRow = Selectable<WebhookAttemptTable>
