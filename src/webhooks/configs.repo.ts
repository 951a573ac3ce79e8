import type { Insertable, Updateable } from 'kysely'
import type { Executor } from '../db/transaction.js'
import type { WebhookConfigRow, WebhookConfigTable } from './webhooks.tables.js'
import type { WebhookVariant } from './webhooks.module.js'

const CONFIG_COLUMNS = [
  'config_id', 'sub_id', 'variant', 'name', 'url', 'events', 'timeout_seconds', 'status', 'auth_type', 'auth_public',
  'auth_secret_sealed', 'signing_secret_sealed', 'previous_secret_sealed', 'previous_secret_expires_at', 'failing_since',
  'last_failure_at', 'sweep_requested_at', 'disabled_reason', 'disabled_at', 'created_at', 'updated_at', 'deleted_at',
] as const

export async function insertConfig(db: Executor, row: Insertable<WebhookConfigTable>): Promise<void> {
  await db.insertInto('webhook_configs').values(row).execute()
}

/** A live configuration of this subscription on this mount; another mount's or subscription's is absent. */
export async function findConfig(db: Executor, subId: string, variant: WebhookVariant, configId: string, opts: { forUpdate?: boolean } = {}): Promise<WebhookConfigRow | undefined> {
  let q = db.selectFrom('webhook_configs').select(CONFIG_COLUMNS)
    .where('sub_id', '=', subId).where('variant', '=', variant).where('config_id', '=', configId).where('deleted_at', 'is', null)
  if (opts.forUpdate) q = q.forUpdate()
  return q.executeTakeFirst()
}

export async function listConfigs(db: Executor, subId: string, variant: WebhookVariant): Promise<WebhookConfigRow[]> {
  return db.selectFrom('webhook_configs').select(CONFIG_COLUMNS)
    .where('sub_id', '=', subId).where('variant', '=', variant).where('deleted_at', 'is', null)
    .orderBy('created_at').orderBy('config_id').execute()
}

/** Configurations of the subscription not deleted, both variants. */
export async function countConfigs(db: Executor, subId: string): Promise<number> {
  const row = await db.selectFrom('webhook_configs').select((eb) => eb.fn.countAll<number>().as('n')).where('sub_id', '=', subId).where('deleted_at', 'is', null).executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function updateConfig(db: Executor, subId: string, configId: string, set: Updateable<WebhookConfigTable>): Promise<void> {
  await db.updateTable('webhook_configs').set(set).where('sub_id', '=', subId).where('config_id', '=', configId).execute()
}

/** Soft-deletes, and asks the sweep to catch a delivery a concurrent fan-out or retry adds after the cancel. */
export async function softDeleteConfig(db: Executor, subId: string, variant: WebhookVariant, configId: string, now: Date): Promise<boolean> {
  const res = await db.updateTable('webhook_configs').set({ deleted_at: now, updated_at: now, status: 'in-active', sweep_requested_at: now })
    .where('sub_id', '=', subId).where('variant', '=', variant).where('config_id', '=', configId).where('deleted_at', 'is', null)
    .executeTakeFirst()
  return Number(res.numUpdatedRows) > 0
}

/** GET one's extras: when the last 2xx attempt was made, and the failed attempts since the last success. */
export async function configStats(db: Executor, subId: string, configId: string, failingSince: Date | null): Promise<{ lastDeliveryAt: Date | null; failureCount: number }> {
  // From the attempt log (indexed by configuration and time) rather than an index on deliveries
  // that every completed delivery would have to maintain.
  const last = await db.selectFrom('webhook_attempts').select('started_at')
    .where('config_id', '=', configId).where('sub_id', '=', subId).where('succeeded', '=', true)
    .orderBy('started_at', 'desc').limit(1).executeTakeFirst()
  let failureCount = 0
  if (failingSince) {
    const row = await db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('sub_id', '=', subId).where('config_id', '=', configId).where('started_at', '>=', failingSince).where('succeeded', '=', false)
      .executeTakeFirstOrThrow()
    failureCount = Number(row.n)
  }
  return { lastDeliveryAt: last?.started_at ?? null, failureCount }
}
