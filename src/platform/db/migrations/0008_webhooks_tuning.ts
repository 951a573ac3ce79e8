import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
// Webhook delivery tuning: the retry window starts at a delivery's first attempt, failure streaks
// know their last failure, the cancel sweep visits only the configurations that ask for it, and
// the indexes of pending deliveries each serve the queries they were made for, whatever the
// statistics say.
export async function up(db: Kysely<any>): Promise<void> {
  // 0005's two indexes of pending deliveries share one predicate (status = 'pending'), so each is a
  // candidate for every query about pending deliveries. Statistics taken while nothing was pending
  // make both look empty, and a planner that believes so reads one whole (in truth large) index per
  // claim, or per candidate of a claim, instead of looking up what it needs. Each predicate now also
  // names the column its own queries constrain (NOT NULL columns, so nothing else changes): the
  // claim's ordered scan by next_attempt_at, and the lookups by configuration (per-package order,
  // cancellation, the sweep).
  await sql`create index webhook_deliveries_claim_idx on webhook_deliveries (next_attempt_at) where status = 'pending' and next_attempt_at is not null`.execute(
    db,
  )
  await sql`create index webhook_deliveries_pending_idx on webhook_deliveries (config_id, package_id, sequence) where status = 'pending' and config_id is not null`.execute(
    db,
  )
  await sql`drop index webhook_deliveries_due_idx`.execute(db)
  await sql`drop index webhook_deliveries_order_idx`.execute(db)

  // Null until the first attempt (and again after a manual retry): the claim sets it to 72 h after
  // the attempt it makes, so an event held behind an earlier one of its package keeps its window.
  await sql`alter table webhook_deliveries alter column give_up_at drop not null`.execute(db)

  // The latest failed attempt of the current streak: a streak whose last failure is older than the
  // retry window is not continuous failure, and the next failure starts a new one.
  await db.schema.alterTable('webhook_configs').addColumn('last_failure_at', 'timestamptz').execute()
  await sql`
    update webhook_configs c set last_failure_at = (
      select max(a.started_at) from webhook_attempts a
      where a.config_id = c.config_id and a.started_at >= c.failing_since and not a.succeeded)
    where c.failing_since is not null`.execute(db)

  // Set when some pending deliveries of the configuration may never be claimed (it was deleted, set
  // in-active or disabled, or dropped events): the sweep closes them and clears it.
  await db.schema.alterTable('webhook_configs').addColumn('sweep_requested_at', 'timestamptz').execute()
  await sql`create index webhook_configs_sweep_idx on webhook_configs (sweep_requested_at) where sweep_requested_at is not null`.execute(
    db,
  )
  await sql`
    update webhook_configs c set sweep_requested_at = now()
    where exists (
      select 1 from webhook_deliveries d
      where d.config_id = c.config_id and d.status = 'pending'
        and (c.deleted_at is not null or c.status <> 'active' or (d.package_id is not null and not (d.event_name = any(c.events)))))`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index webhook_configs_sweep_idx`.execute(db)
  await db.schema.alterTable('webhook_configs').dropColumn('sweep_requested_at').execute()
  await db.schema.alterTable('webhook_configs').dropColumn('last_failure_at').execute()
  await sql`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(
    db,
  )
  await sql`create index webhook_deliveries_order_idx on webhook_deliveries (config_id, package_id, sequence) where status = 'pending'`.execute(
    db,
  )
  await sql`drop index webhook_deliveries_pending_idx`.execute(db)
  await sql`drop index webhook_deliveries_claim_idx`.execute(db)
  // 0005's rule: 72 hours after creation.
  await sql`update webhook_deliveries set give_up_at = created_at + interval '72 hours' where give_up_at is null`.execute(
    db,
  )
  await sql`alter table webhook_deliveries alter column give_up_at set not null`.execute(db)
}
