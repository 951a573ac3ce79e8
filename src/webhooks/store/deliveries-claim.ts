import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import { type WebhookVariant, eventData } from '../../events/index.js'
import type { AuthPublic, AuthType } from './tables.js'

// The worker's claim of due deliveries (webhook_deliveries, with their configuration read alongside
// and their events' data asked of the outbox), kept apart from webhooks/store/deliveries.ts for its length: it runs across
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
  /** Set when the previous holder's lease ran out: that worker stopped mid-attempt. */
  prev_locked_until: Date | null
  /** This claim's lease: the configuration's timeout twice (an OAuth2 token fetch and the send) and a margin. */
  locked_until: Date
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
 * Claims up to `limit` due deliveries for `workerId` (platform/jobs: the caller asks for no more than
 * it has free slots, so everything claimed is sent at once and a crash repeats at most the
 * deliveries in flight) and returns them with their configuration (read now, so an update applies
 * to the next notification) and their event's data.
 *
 * Deliveries are independent: no per-package order, so one failing delivery holds nothing else up
 * (issue 24). Every event carries its package's `sequence`; a receiver that cares about order
 * ignores one older than the last it saw for the package (docs/webhooks.md).
 *
 * The lease covers a send and an OAuth2 token fetch, each bounded by the configuration's timeOut,
 * plus a margin; past it a crashed worker's deliveries are due again, and its late answer is not
 * recorded (recordOutcomes settles only deliveries this worker still holds). The claim changes no
 * indexed column (updated_at included), so PostgreSQL can update the row in place (HOT).
 *
 * The retry window starts here, at the first attempt, not when the delivery was created.
 */
export async function claimDue(db: Executor, opts: ClaimOptions): Promise<ClaimedDelivery[]> {
  const { rows } = await claimStatement(opts).execute(db)
  const data = await eventData(db, [...new Set(rows.map((r) => r.event_id))])
  return rows.map((r) => ({ ...r, data: data.get(r.event_id) ?? null }))
}

export interface ClaimOptions {
  now: Date
  limit: number
  workerId: string
  leaseMarginSeconds: number
  windowEnd: Date
}

/**
 * The claim's statement, shaped so that its plan holds whatever the statistics say (statistics
 * taken when nothing was pending make every index of pending deliveries look empty, and a backlog
 * is then claimed with plans that read every pending delivery): the due deliveries come from one
 * ordered scan of webhook_deliveries_claim_idx, stopping at `limit`; the configuration check is a
 * subplan (OFFSET 0 keeps the planner from turning it into a join driven from the other side); the
 * update finds its rows by primary key from an array. test/webhooks/claim-plan.test.ts checks it.
 */
export function claimStatement(opts: ClaimOptions) {
  const { now, limit, workerId, leaseMarginSeconds, windowEnd } = opts
  return sql<Omit<ClaimedDelivery, 'data'>>`
    with due as (
      select d.delivery_id, d.locked_until as prev_locked_until
      from webhook_deliveries d
      where d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz
        and (d.locked_until is null or d.locked_until <= ${now}::timestamptz)
        and exists (
          select 1 from webhook_configs c
          where c.config_id = d.config_id and c.status = 'active' and c.deleted_at is null
            and (d.package_id is null or d.event_name = any(c.events))
          offset 0)
      order by d.next_attempt_at
      limit ${limit}
      for update of d skip locked
    ), claimed as (
      update webhook_deliveries d
      set locked_until = ${now}::timestamptz + make_interval(secs => (select c.timeout_seconds from webhook_configs c where c.config_id = d.config_id) * 2 + ${leaseMarginSeconds}),
          locked_by = ${workerId}, attempts = d.attempts + 1, give_up_at = coalesce(d.give_up_at, ${windowEnd}::timestamptz)
      where d.delivery_id = any(array(select due.delivery_id from due))
      returning d.delivery_id, d.sub_id, d.config_id, d.event_id, d.event_name, d.package_id, d.sequence, d.occurred_at,
                d.attempts, d.give_up_at, d.locked_until
    )
    select claimed.*, due.prev_locked_until,
           c.variant, c.url, c.timeout_seconds, c.auth_type, c.auth_public, c.auth_secret_sealed,
           c.signing_secret_sealed, c.previous_secret_sealed, c.previous_secret_expires_at
    from claimed
    join due on due.delivery_id = claimed.delivery_id
    join webhook_configs c on c.config_id = claimed.config_id
    order by claimed.delivery_id`
}
