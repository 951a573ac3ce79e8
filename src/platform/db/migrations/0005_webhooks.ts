import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
// Webhook configurations, one delivery per (configuration, event), and every attempt of a delivery.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_configs')
    .addColumn('config_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull().references('subscriptions.sub_id'))
    .addColumn('variant', 'text', (c) => c.notNull()) // 'tracking' | 'locker': the mount it was created on
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', sql`text[]`, (c) => c.notNull())
    .addColumn('timeout_seconds', 'integer', (c) => c.notNull().defaultTo(5))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active')) // 'active' | 'in-active'
    .addColumn('auth_type', 'text', (c) => c.notNull())
    // The non-secret auth fields (headerName, username, tokenUrl, clientId, scope).
    .addColumn('auth_public', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    // The one secret of the auth type (apiKey, password, clientSecret), AES-256-GCM, aad = config id.
    .addColumn('auth_secret_sealed', 'text')
    .addColumn('signing_secret_sealed', 'text', (c) => c.notNull())
    // After a rotation the previous secret keeps signing until it expires (24 h).
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_expires_at', 'timestamptz')
    // First failed attempt since the last success: 5 days of it disable the configuration.
    .addColumn('failing_since', 'timestamptz')
    .addColumn('disabled_reason', 'text') // 'gone' (410) | 'failing' (5 days); null when enabled by hand
    .addColumn('disabled_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    // Soft delete: the delivery history stays until the retention job removes it.
    .addColumn('deleted_at', 'timestamptz')
    .execute()
  await sql`create index webhook_configs_sub_idx on webhook_configs (sub_id, variant, created_at) where deleted_at is null`.execute(
    db,
  )

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('delivery_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('config_id', 'text', (c) => c.notNull().references('webhook_configs.config_id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_name', 'text', (c) => c.notNull())
    .addColumn('package_id', 'text') // null for a test ping
    .addColumn('sequence', 'integer') // per package; null for a test ping
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // pending | delivered | failed | cancelled
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    // Retries continue at least until then (72 h after creation or after a manual retry).
    .addColumn('give_up_at', 'timestamptz', (c) => c.notNull())
    // The lease of the worker sending it: past it, a crashed worker's delivery is claimed again.
    .addColumn('locked_until', 'timestamptz')
    .addColumn('locked_by', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    // Room in each page for the claim's in-place (HOT) update of the lease columns.
    .modifyEnd(sql`with (fillfactor = 70)`)
    .execute()
  // One delivery per configuration and event: the fan-out can run twice without duplicates.
  await sql`create unique index webhook_deliveries_event_uq on webhook_deliveries (config_id, event_id)`.execute(db)
  // The claim query: due pending deliveries, oldest first.
  await sql`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(
    db,
  )
  // Per-package order: is an earlier delivery of this package to this configuration still pending?
  await sql`create index webhook_deliveries_order_idx on webhook_deliveries (config_id, package_id, sequence) where status = 'pending'`.execute(
    db,
  )
  // The deliveries list, and the retention purge (configuration by configuration).
  await sql`create index webhook_deliveries_list_idx on webhook_deliveries (sub_id, config_id, created_at desc)`.execute(
    db,
  )

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('attempt_id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) =>
      c.notNull().references('webhook_deliveries.delivery_id').onDelete('cascade'),
    )
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('config_id', 'text', (c) => c.notNull())
    .addColumn('attempt_no', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('latency_ms', 'integer')
    .addColumn('status_code', 'integer')
    .addColumn('succeeded', 'boolean', (c) => c.notNull())
    .addColumn('error_class', 'text') // timeout | connect | dns | ssrf | tls | http_3xx | http_4xx | http_5xx | oauth | lease_expired …
    .addColumn('error', 'text')
    .addColumn('response_body', 'text') // the first 4 KiB
    .execute()
  await sql`create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, attempt_no)`.execute(db)
  // GET one: the last success and the failures since (few rows from the newest backwards).
  await sql`create index webhook_attempts_config_idx on webhook_attempts (config_id, started_at)`.execute(db)

  // The locker jobs (PickupReminder, Expired) scan packages in a locker; this keeps that scan
  // proportional to the lockers' contents rather than to every package ever received.
  await sql`create index webhooks_packages_in_locker_idx on packages (package_id) where current_status = 'IN_LOCKER'`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index webhooks_packages_in_locker_idx`.execute(db)
  for (const t of ['webhook_attempts', 'webhook_deliveries', 'webhook_configs']) {
    await db.schema.dropTable(t).execute()
  }
}
