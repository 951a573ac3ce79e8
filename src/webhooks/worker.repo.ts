import { sql, type Insertable } from 'kysely'
import type { Executor } from '../db/transaction.js'
import type { AuthPublic, AuthType, WebhookAttemptTable, WebhookDeliveryTable } from './webhooks.tables.js'

// The worker's SQL: fan-out of the outbox into deliveries, the claim of due deliveries, and the
// recording of their attempts. These run across subscriptions by design (the worker serves all).

export interface OutboxRow {
  event_id: string
  sub_id: string
  package_id: string
  variant: 'tracking' | 'locker'
  event_name: string
  sequence: number
  occurred_at: Date
}

/**
 * Claims the oldest undispatched events and marks them dispatched in one statement (rows another
 * worker holds are skipped, not waited for). The caller's transaction inserts their deliveries:
 * both commit together, or neither does.
 */
export async function claimUndispatched(trx: Executor, limit: number, now: Date): Promise<OutboxRow[]> {
  const { rows } = await sql<OutboxRow>`
    update package_events set dispatched_at = ${now}::timestamptz
    where event_id in (
      select event_id from package_events where dispatched_at is null
      order by occurred_at, sequence limit ${limit} for update skip locked)
    returning event_id, sub_id, package_id, variant, event_name, sequence, occurred_at`.execute(trx)
  return rows.sort((x, y) => x.occurred_at.getTime() - y.occurred_at.getTime() || x.sequence - y.sequence)
}

/**
 * The still undispatched events of these packages (the caller's batch is already marked). An
 * event whose package has an earlier one among them (held by a concurrent fan-out, or past the
 * batch's end) must wait: fanned out first, it could be delivered before the earlier one.
 */
export async function undispatchedOf(trx: Executor, packageIds: string[]): Promise<Array<{ package_id: string; event_id: string; sequence: number }>> {
  if (packageIds.length === 0) return []
  return trx.selectFrom('package_events').select(['package_id', 'event_id', 'sequence'])
    .where('package_id', 'in', packageIds).where('dispatched_at', 'is', null).execute()
}

export async function activeConfigsOf(trx: Executor, subIds: string[]) {
  if (subIds.length === 0) return []
  return trx.selectFrom('webhook_configs').select(['config_id', 'sub_id', 'variant', 'events', 'created_at'])
    .where('sub_id', 'in', subIds).where('status', '=', 'active').where('deleted_at', 'is', null).execute()
}

export async function insertDeliveries(trx: Executor, rows: Insertable<WebhookDeliveryTable>[]): Promise<void> {
  if (rows.length === 0) return
  // A configuration already holding this event (a fan-out repeated after a crash) keeps its delivery.
  await trx.insertInto('webhook_deliveries').values(rows).onConflict((oc) => oc.columns(['config_id', 'event_id']).doNothing()).execute()
}

/** Gives back events claimed but held for order: the next fan-out takes them again. */
export async function releaseEvents(trx: Executor, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return
  await trx.updateTable('package_events').set({ dispatched_at: null }).where('event_id', 'in', eventIds).execute()
}

export interface ClaimedDelivery {
  delivery_id: string
  sub_id: string
  config_id: string
  event_id: string
  event_name: string
  package_id: string | null
  sequence: number | null
  occurred_at: Date
  attempts: number
  /** Set by the claim that makes the first attempt (or the first after a manual retry). */
  give_up_at: Date
  /** What give_up_at was before this claim: a delivery given back unsent gets it back. */
  prev_give_up_at: Date | null
  /** Set when the previous holder's lease ran out: that worker stopped mid-attempt. */
  prev_locked_until: Date | null
  /** This claim's lease, the same for every delivery of a run. */
  locked_until: Date
  /** The run: the delivery it starts with, and this delivery's place in it (0 for the first). */
  run_id: string
  run_pos: number
  variant: 'tracking' | 'locker'
  url: string
  timeout_seconds: number
  auth_type: AuthType
  auth_public: AuthPublic
  auth_secret_sealed: string | null
  signing_secret_sealed: string
  previous_secret_sealed: string | null
  previous_secret_expires_at: Date | null
  data: Record<string, unknown> | null
}

/**
 * Claims up to `limit` runs of due deliveries for `workerId` and returns them with their
 * configuration (read now, so an update applies to the next notification) and their event's data.
 *
 * Per-package order: a delivery waits while an earlier-sequence delivery of the same package to
 * the same configuration is still pending (in flight, or waiting to be retried). That an earlier
 * event is never fanned out after a later one is the fan-out's part (`readyToFanOut`).
 *
 * A run is a due delivery that may go now and up to `runMax - 1` deliveries of the same
 * configuration and package that follow it in sequence, each due and not held: the worker sends
 * them one after another in one claim, instead of one claim (and one record) per delivery while
 * a few packages receive every update. The run stops at the first delivery that may not go.
 *
 * The lease covers a send and an OAuth2 token fetch, each bounded by the configuration's timeOut,
 * plus a margin; past it a crashed worker's deliveries are due again. A run shares one lease: the
 * worker starts a send of a run only while the lease still covers it, and gives the rest back. The
 * claim changes no indexed column (updated_at included), so PostgreSQL can update the row in place (HOT).
 *
 * The retry window starts here, at the first attempt, not when the delivery was created: one held
 * behind an earlier delivery of its package has had no attempt to spend its window on.
 */
export async function claimDue(db: Executor, opts: ClaimOptions): Promise<ClaimedDelivery[]> {
  const { rows } = await claimStatement(opts).execute(db)
  return rows
}

export interface ClaimOptions {
  now: Date
  /** Runs, at most. */
  limit: number
  /** Deliveries of one run, at most. */
  runMax: number
  workerId: string
  leaseMarginSeconds: number
  windowEnd: Date
}

/**
 * The claim's statement, shaped so that its plan holds whatever the statistics say. Statistics
 * taken when nothing was pending (a quiet night) make every index of pending deliveries look
 * empty, and then a backlog (a receiver back from an outage) is claimed with plans that read every
 * pending delivery per claim, or per candidate: quadratic, when it matters most. So:
 *  - the due deliveries come from one ordered scan of webhook_deliveries_claim_idx, stopping at
 *    `limit`; that index is a candidate for this scan only (its `next_attempt_at is not null` is
 *    implied by this query's `next_attempt_at <= now` and by no other query);
 *  - the configuration check and the per-package probe are subplans (OFFSET 0 keeps them from
 *    being turned into joins the planner could drive from the other side), and the probe reads
 *    webhook_deliveries_pending_idx by (configuration, package, sequence): the claim index is no
 *    candidate for it. The rest of each run is read the same way, in sequence order, `runMax` at most.
 * test/webhooks/claim-plan.test.ts checks the plan with statistics that say nothing is pending.
 *
 * Only the first delivery of a run is locked with SKIP LOCKED: no other claim can take the rest
 * while it holds the first (they are not due to anyone else: an earlier delivery is pending), and
 * one that changed since the read (cancelled) is left out by the update, which the worker sees
 * as a gap in run_pos.
 */
export function claimStatement(opts: ClaimOptions) {
  const { now, limit, runMax, workerId, leaseMarginSeconds, windowEnd } = opts
  return sql<ClaimedDelivery>`
    with due as (
      select d.delivery_id, d.config_id, d.package_id, d.sequence, d.locked_until as prev_locked_until, d.give_up_at as prev_give_up_at,
             (select c.timeout_seconds from webhook_configs c where c.config_id = d.config_id) as timeout_seconds,
             (select c.events from webhook_configs c where c.config_id = d.config_id) as events
      from webhook_deliveries d
      where d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz
        and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
        and exists (
          select 1 from webhook_configs c
          where c.config_id = d.config_id and c.status = 'active' and c.deleted_at is null
            and (d.package_id is null or d.event_name = any(c.events))
          offset 0)
        and not exists (
          select 1 from webhook_deliveries e
          where e.config_id = d.config_id and e.status = 'pending' and e.package_id = d.package_id and e.sequence < d.sequence
          offset 0)
      order by d.next_attempt_at
      limit ${limit}
      for update of d skip locked
    ), runs as (
      select due.delivery_id as run_id, 0 as run_pos, due.delivery_id, due.prev_locked_until, due.prev_give_up_at, due.timeout_seconds
      from due
      union all
      select due.delivery_id, f.run_pos, f.delivery_id, f.locked_until, f.give_up_at, due.timeout_seconds
      from due cross join lateral (
        select g.delivery_id, g.run_pos, g.locked_until, g.give_up_at
        from (
          select e.delivery_id, e.locked_until, e.give_up_at, row_number() over (order by e.sequence)::int as run_pos,
                 bool_and(e.next_attempt_at <= ${now}::timestamptz and (e.locked_until is null or e.locked_until <= ${now}::timestamptz)
                          and e.event_name = any(due.events)) over (order by e.sequence) as may_go
          from webhook_deliveries e
          where e.config_id = due.config_id and e.status = 'pending' and e.package_id = due.package_id and e.sequence > due.sequence
          order by e.sequence
          limit ${runMax - 1}
        ) g
        where g.may_go
        offset 0) f
      where due.package_id is not null
    ), claimed as (
      update webhook_deliveries d
      set locked_until = ${now}::timestamptz + make_interval(secs => runs.timeout_seconds * 2 + ${leaseMarginSeconds}),
          locked_by = ${workerId}, attempts = d.attempts + 1, give_up_at = coalesce(d.give_up_at, ${windowEnd}::timestamptz)
      from runs
      where d.delivery_id = runs.delivery_id
        and (runs.run_pos = 0 or (d.status = 'pending' and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)))
      returning d.delivery_id, d.sub_id, d.config_id, d.event_id, d.event_name, d.package_id, d.sequence, d.occurred_at,
                d.attempts, d.give_up_at, runs.prev_give_up_at, runs.prev_locked_until, d.locked_until, runs.run_id, runs.run_pos
    )
    select claimed.*, c.variant, c.url, c.timeout_seconds, c.auth_type, c.auth_public, c.auth_secret_sealed,
           c.signing_secret_sealed, c.previous_secret_sealed, c.previous_secret_expires_at, pe.data
    from claimed
    join webhook_configs c on c.config_id = claimed.config_id
    left join package_events pe on pe.event_id = claimed.event_id
    order by claimed.run_id, claimed.run_pos`
}

export interface DeliveryOutcome {
  delivery_id: string
  status: 'pending' | 'delivered' | 'failed'
  next_attempt_at: Date
  delivered_at: Date | null
  last_status_code: number | null
  last_error: string | null
}

/** A delivery claimed but not sent (its run stopped before it): as it was before the claim, and due. */
export interface DeliveryRelease {
  delivery_id: string
  give_up_at: Date | null
}

/** Gives back deliveries this worker claimed and did not send: the claim's attempt and window are undone. */
export async function releaseDeliveries(trx: Executor, workerId: string, releases: DeliveryRelease[]): Promise<void> {
  if (releases.length === 0) return
  await sql`
    update webhook_deliveries d
    set attempts = d.attempts - 1, give_up_at = v.give_up_at, locked_until = null, locked_by = null
    from jsonb_to_recordset(${JSON.stringify(releases)}::jsonb) as v(delivery_id text, give_up_at timestamptz)
    where d.delivery_id = v.delivery_id and d.locked_by = ${workerId} and d.status = 'pending'`.execute(trx)
}

export async function insertAttempts(trx: Executor, rows: Insertable<WebhookAttemptTable>[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('webhook_attempts').values(rows).execute()
}

/**
 * Records the outcome of each delivery in one statement. Only a delivery this worker still holds
 * and that is still pending changes: a cancelled one stays cancelled, and one whose lease another
 * worker took over is that worker's to record.
 */
export async function recordOutcomes(trx: Executor, workerId: string, now: Date, outcomes: DeliveryOutcome[]): Promise<void> {
  if (outcomes.length === 0) return
  await sql`
    update webhook_deliveries d
    set status = v.status, next_attempt_at = v.next_attempt_at, delivered_at = v.delivered_at,
        last_status_code = v.last_status_code, last_error = v.last_error,
        locked_until = null, locked_by = null, updated_at = ${now}::timestamptz
    from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb)
      as v(delivery_id text, status text, next_attempt_at timestamptz, delivered_at timestamptz, last_status_code int, last_error text)
    where d.delivery_id = v.delivery_id and d.locked_by = ${workerId} and d.status = 'pending'`.execute(trx)
}

/**
 * Locks, in one order, the configurations whose failure streak this transaction may write: those
 * with a failure in the batch and those with a streak to end. Every writer locks a configuration
 * before its deliveries (the service in its update and delete, the worker here), and in id order,
 * so two of them never wait on each other in a circle.
 */
export async function lockStreaks(trx: Executor, configIds: string[], failing: string[]): Promise<void> {
  if (configIds.length === 0) return
  await sql`
    select config_id from webhook_configs
    where config_id = any(${configIds}::text[]) and (config_id = any(${failing}::text[]) or failing_since is not null)
    order by config_id
    for no key update`.execute(trx)
}

/** What one batch of attempts says about a configuration's receiver. */
export interface StreakUpdate {
  configId: string
  /** A 2xx in this batch: the streak so far ends. */
  succeeded: boolean
  /** The first and the last failure not before the batch's last success: null when there is none. */
  firstFailureAt: Date | null
  lastFailureAt: Date | null
  /** A streak whose last failure is older than this is over: the next failure starts a new one. */
  staleBefore: Date
}

/**
 * Ends, starts and continues failure streaks in one statement; returns each configuration's
 * streak start (null: none). A configuration with no streak and only successes is not written
 * (and not locked): the common case costs nothing.
 */
export async function updateStreaks(trx: Executor, updates: StreakUpdate[]): Promise<Array<{ config_id: string; failing_since: Date | null }>> {
  if (updates.length === 0) return []
  const values = updates.map((u) => ({ config_id: u.configId, succeeded: u.succeeded, first_failure_at: u.firstFailureAt, last_failure_at: u.lastFailureAt, stale_before: u.staleBefore }))
  const { rows } = await sql<{ config_id: string; failing_since: Date | null }>`
    update webhook_configs c
    set failing_since = case
          when v.succeeded then v.first_failure_at
          when c.failing_since is null or c.last_failure_at is null or c.last_failure_at < v.stale_before then v.first_failure_at
          else c.failing_since end,
        last_failure_at = case when v.succeeded then v.last_failure_at else greatest(c.last_failure_at, v.last_failure_at) end
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
      as v(config_id text, succeeded boolean, first_failure_at timestamptz, last_failure_at timestamptz, stale_before timestamptz)
    where c.config_id = v.config_id and c.deleted_at is null and (v.first_failure_at is not null or c.failing_since is not null)
    returning c.config_id, c.failing_since`.execute(trx)
  return rows
}

/**
 * Ends the streaks of configurations left with no pending delivery (the last one gave up, failed
 * or was closed): nothing is being retried, so a failure days later is not "continuous" failure.
 */
export async function endIdleStreaks(trx: Executor, configIds: string[]): Promise<void> {
  if (configIds.length === 0) return
  await sql`
    update webhook_configs c set failing_since = null, last_failure_at = null
    where c.config_id = any(${configIds}::text[]) and c.failing_since is not null
      and not exists (select 1 from webhook_deliveries d where d.config_id = c.config_id and d.status = 'pending')`.execute(trx)
}

/** Sets configurations in-active on the receiver's behalf, and fails their idle pending deliveries. */
export async function disableConfigs(trx: Executor, disables: Array<{ configId: string; reason: 'gone' | 'failing' }>, now: Date): Promise<void> {
  for (const reason of ['gone', 'failing'] as const) {
    const ids = disables.filter((d) => d.reason === reason).map((d) => d.configId)
    if (ids.length === 0) continue
    // Deliveries in flight elsewhere come back pending after this: the sweep closes them.
    await trx.updateTable('webhook_configs').set({ status: 'in-active', disabled_reason: reason, disabled_at: now, updated_at: now, sweep_requested_at: now })
      .where('config_id', 'in', ids).where('status', '=', 'active').execute()
    const why = reason === 'gone' ? 'configuration disabled: the receiver answered 410 Gone' : 'configuration disabled: every attempt failed for 5 days'
    await trx.updateTable('webhook_deliveries').set({ status: 'failed', last_error: why, updated_at: now })
      .where('config_id', 'in', ids).where('status', '=', 'pending')
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)])).execute()
  }
}
