import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { WebhookVariant } from '../../events/variants.js'
import type { AuthPublic, AuthType } from './tables.js'

// The worker's claim of due deliveries (webhook_deliveries, with their configuration and event
// read alongside), kept apart from webhooks/store/deliveries.ts for its length: it runs across
// subscriptions by design (the worker serves all).

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
  variant: WebhookVariant
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
 * as a gap in run_pos. The update finds its rows by primary key from an array: joined to the runs,
 * whose size the planner cannot know, it was planned as a hash join over the whole table.
 */
export function claimStatement(opts: ClaimOptions) {
  const { now, limit, runMax, workerId, leaseMarginSeconds, windowEnd } = opts
  return sql<ClaimedDelivery>`
    with due as (
      select d.delivery_id, d.config_id, d.package_id, d.sequence, d.locked_until as prev_locked_until, d.give_up_at as prev_give_up_at,
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
      select due.delivery_id as run_id, 0 as run_pos, due.delivery_id, due.prev_locked_until, due.prev_give_up_at
      from due
      union all
      select due.delivery_id, f.run_pos, f.delivery_id, f.locked_until, f.give_up_at
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
      set locked_until = ${now}::timestamptz + make_interval(secs => (select c.timeout_seconds from webhook_configs c where c.config_id = d.config_id) * 2 + ${leaseMarginSeconds}),
          locked_by = ${workerId}, attempts = d.attempts + 1, give_up_at = coalesce(d.give_up_at, ${windowEnd}::timestamptz)
      where d.delivery_id = any(array(select runs.delivery_id from runs))
        and d.status = 'pending' and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
      returning d.delivery_id, d.sub_id, d.config_id, d.event_id, d.event_name, d.package_id, d.sequence, d.occurred_at,
                d.attempts, d.give_up_at, d.locked_until
    )
    select claimed.*, runs.prev_give_up_at, runs.prev_locked_until, runs.run_id, runs.run_pos,
           c.variant, c.url, c.timeout_seconds, c.auth_type, c.auth_public, c.auth_secret_sealed,
           c.signing_secret_sealed, c.previous_secret_sealed, c.previous_secret_expires_at, pe.data
    from claimed
    join runs on runs.delivery_id = claimed.delivery_id
    join webhook_configs c on c.config_id = claimed.config_id
    left join package_events pe on pe.event_id = claimed.event_id
    order by runs.run_id, runs.run_pos`
}
