import { sql, type Insertable, type Updateable } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { WebhookVariant } from '../../events/index.js'
import type { WebhookConfigRow, WebhookConfigTable } from './tables.js'

// The webhook_configs table: the configuration API's reads and writes, the worker's (fan-out
// targets, failure streaks, disabling) and the sweep's.

const CONFIG_COLUMNS = [
  'config_id',
  'sub_id',
  'variant',
  'name',
  'url',
  'events',
  'timeout_seconds',
  'status',
  'auth_type',
  'auth_public',
  'auth_secret_sealed',
  'signing_secret_sealed',
  'previous_secret_sealed',
  'previous_secret_expires_at',
  'failing_since',
  'last_failure_at',
  'sweep_requested_at',
  'disabled_reason',
  'disabled_at',
  'created_at',
  'updated_at',
  'deleted_at',
] as const

export async function insertConfig(db: Executor, row: Insertable<WebhookConfigTable>): Promise<void> {
  await db.insertInto('webhook_configs').values(row).execute()
}

/** A live configuration of this subscription on this mount; another mount's or subscription's is absent. */
export async function findConfig(
  db: Executor,
  subId: string,
  variant: WebhookVariant,
  configId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<WebhookConfigRow | undefined> {
  let q = db
    .selectFrom('webhook_configs')
    .select(CONFIG_COLUMNS)
    .where('sub_id', '=', subId)
    .where('variant', '=', variant)
    .where('config_id', '=', configId)
    .where('deleted_at', 'is', null)
  if (opts.forUpdate) q = q.forUpdate()
  return q.executeTakeFirst()
}

export async function listConfigs(db: Executor, subId: string, variant: WebhookVariant): Promise<WebhookConfigRow[]> {
  return db
    .selectFrom('webhook_configs')
    .select(CONFIG_COLUMNS)
    .where('sub_id', '=', subId)
    .where('variant', '=', variant)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('config_id')
    .execute()
}

/** Configurations of the subscription not deleted, both variants. */
/** Serialises the limit check and insert of one subscription's configurations (released at commit). */
export async function lockSubscriptionConfigs(db: Executor, subId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(727004, hashtext(${subId}))`.execute(db)
}

export async function countConfigs(db: Executor, subId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_configs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('sub_id', '=', subId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function updateConfig(
  db: Executor,
  subId: string,
  configId: string,
  set: Updateable<WebhookConfigTable>,
): Promise<void> {
  await db
    .updateTable('webhook_configs')
    .set(set)
    .where('sub_id', '=', subId)
    .where('config_id', '=', configId)
    .execute()
}

/** Soft-deletes, and asks the sweep to catch a delivery a concurrent fan-out or retry adds after the cancel. */
export async function softDeleteConfig(
  db: Executor,
  subId: string,
  variant: WebhookVariant,
  configId: string,
  now: Date,
): Promise<boolean> {
  const res = await db
    .updateTable('webhook_configs')
    .set({ deleted_at: now, updated_at: now, status: 'in-active', sweep_requested_at: now })
    .where('sub_id', '=', subId)
    .where('variant', '=', variant)
    .where('config_id', '=', configId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()
  return Number(res.numUpdatedRows) > 0
}

export async function activeConfigsOf(trx: Executor, subIds: string[]) {
  if (subIds.length === 0) return []
  return trx
    .selectFrom('webhook_configs')
    .select(['config_id', 'sub_id', 'variant', 'events', 'created_at'])
    .where(sql<boolean>`sub_id = any(${subIds}::text[])`)
    .where('status', '=', 'active')
    .where('deleted_at', 'is', null)
    .execute()
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
export async function updateStreaks(
  trx: Executor,
  updates: StreakUpdate[],
): Promise<Array<{ config_id: string; failing_since: Date | null }>> {
  if (updates.length === 0) return []
  const values = updates.map((u) => ({
    config_id: u.configId,
    succeeded: u.succeeded,
    first_failure_at: u.firstFailureAt,
    last_failure_at: u.lastFailureAt,
    stale_before: u.staleBefore,
  }))
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
      and not exists (select 1 from webhook_deliveries d where d.config_id = c.config_id and d.status = 'pending')`.execute(
    trx,
  )
}

/** Sets configurations in-active on the receiver's behalf ('gone': 410; 'failing': failing too long). */
export async function disableConfigs(
  trx: Executor,
  configIds: string[],
  reason: 'gone' | 'failing',
  now: Date,
): Promise<void> {
  if (configIds.length === 0) return
  await trx
    .updateTable('webhook_configs')
    .set({ status: 'in-active', disabled_reason: reason, disabled_at: now, updated_at: now, sweep_requested_at: now })
    .where('config_id', 'in', configIds)
    .where('status', '=', 'active')
    .execute()
}

/** Configurations whose sweep was asked for, oldest request first, after the (time, id) `after`. */
export async function configsToSweep(
  db: Executor,
  limit: number,
  after?: { at: Date; configId: string },
): Promise<Array<{ config_id: string; sweep_requested_at: Date }>> {
  let q = db
    .selectFrom('webhook_configs')
    .select(['config_id', 'sweep_requested_at'])
    .where('sweep_requested_at', 'is not', null)
  if (after)
    q = q.where((eb) =>
      eb.or([
        eb('sweep_requested_at', '>', after.at),
        eb.and([eb('sweep_requested_at', '=', after.at), eb('config_id', '>', after.configId)]),
      ]),
    )
  const rows = await q.orderBy('sweep_requested_at').orderBy('config_id').limit(limit).execute()
  return rows as Array<{ config_id: string; sweep_requested_at: Date }>
}

/**
 * Ends the sweep of configurations asked for before `settledBefore` that hold no unsendable pending
 * delivery any more. The wait lets a fan-out or a manual retry that read the configuration before
 * its change commit its delivery first; a request made since (a newer time) keeps the flag.
 */
export async function endSweeps(db: Executor, configIds: string[], settledBefore: Date): Promise<void> {
  if (configIds.length === 0) return
  await sql`
    update webhook_configs c set sweep_requested_at = null
    where c.config_id = any(${configIds}::text[]) and c.sweep_requested_at <= ${settledBefore}::timestamptz
      and not exists (
        select 1 from webhook_deliveries d
        where d.config_id = c.config_id and d.status = 'pending'
          and (c.deleted_at is not null or c.status <> 'active' or (d.package_id is not null and not (d.event_name = any(c.events)))))`.execute(
    db,
  )
}

export async function purgeDeletedConfigs(db: Executor, cutoff: Date): Promise<void> {
  await db
    .deleteFrom('webhook_configs')
    .where('deleted_at', '<', cutoff)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_deliveries as d')
            .select('d.delivery_id')
            .whereRef('d.config_id', '=', 'webhook_configs.config_id'),
        ),
      ),
    )
    .execute()
}
