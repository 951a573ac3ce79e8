import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { findConfig } from './store/configs.js'
import type { DeliveryView, ListDeliveriesQuery } from './api/configs-schemas.js'
import { listAttempts } from './store/attempts.js'
import * as repo from './store/deliveries.js'
import { PING_EVENT, type WebhookVariant } from '../events/index.js'
import { WEBHOOK_ERRORS } from './model/errors.js'
import type { WebhookConfigRow, WebhookDeliveryRow } from './store/tables.js'
import type { WindowQuota } from '../platform/fairness/quotas.js'

export interface DeliveriesServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  /** Test sends per subscription per minute (issue 14.4); absent: no bound. */
  testQuota?: WindowQuota
}

export function deliveryView(row: WebhookDeliveryRow): DeliveryView {
  const out: DeliveryView = {
    deliveryId: row.delivery_id,
    eventId: row.event_id,
    eventName: row.event_name,
    // 'cancelled' belongs to deleted configurations, which are not listed; never leak it as a fourth status.
    status: row.status === 'cancelled' ? 'failed' : row.status,
    attempts: row.attempts,
    createdAt: row.created_at.toISOString(),
  }
  if (row.last_status_code !== null) out.lastStatusCode = row.last_status_code
  if (row.last_error !== null) out.lastError = row.last_error
  if (row.status === 'pending') out.nextAttemptAt = row.next_attempt_at.toISOString()
  if (row.delivered_at) out.deliveredAt = row.delivered_at.toISOString()
  if (row.package_id !== null) out.packageId = row.package_id
  if (row.sequence !== null) out.sequence = row.sequence
  return out
}

export type DeliveriesService = ReturnType<typeof createDeliveriesService>

export function createDeliveriesService(deps: DeliveriesServiceDeps) {
  const { db, clock, ids } = deps

  async function configOf(subId: string, variant: WebhookVariant, configId: string): Promise<WebhookConfigRow> {
    const config = await findConfig(db, subId, variant, configId)
    if (!config) throw new AppError(WEBHOOK_ERRORS.WEBHOOK_CONFIG_NOT_FOUND)
    return config
  }

  return {
    async list(
      subId: string,
      variant: WebhookVariant,
      configId: string,
      q: ListDeliveriesQuery,
    ): Promise<DeliveryView[]> {
      await configOf(subId, variant, configId)
      const rows = await repo.listDeliveries(db, subId, configId, {
        status: q.status as WebhookDeliveryRow['status'] | undefined,
        skip: q.skip,
        limit: q.limit,
      })
      return rows.map(deliveryView)
    },

    /** A failed (or still pending) delivery becomes due now, with a fresh 72-hour retry window from its next attempt. */
    async retry(subId: string, variant: WebhookVariant, configId: string, deliveryId: string): Promise<DeliveryView> {
      const config = await configOf(subId, variant, configId)
      const found = await repo.findDelivery(db, subId, configId, deliveryId)
      if (!found || found.status === 'cancelled') throw new AppError(WEBHOOK_ERRORS.WEBHOOK_DELIVERY_NOT_FOUND)
      if (found.status === 'delivered') throw new AppError(WEBHOOK_ERRORS.WEBHOOK_DELIVERY_DELIVERED)
      if (config.status !== 'active') throw new AppError(WEBHOOK_ERRORS.WEBHOOK_CONFIG_INACTIVE)
      const now = clock.now()
      const row = await repo.makeDue(db, subId, configId, deliveryId, now)
      // Delivered between the read and the update: nothing left to retry.
      if (!row) throw new AppError(WEBHOOK_ERRORS.WEBHOOK_DELIVERY_DELIVERED)
      return deliveryView(row)
    },

    async attempts(subId: string, variant: WebhookVariant, configId: string, deliveryId: string) {
      await configOf(subId, variant, configId)
      const found = await repo.findDelivery(db, subId, configId, deliveryId)
      if (!found || found.status === 'cancelled') throw new AppError(WEBHOOK_ERRORS.WEBHOOK_DELIVERY_NOT_FOUND)
      const rows = await listAttempts(db, subId, deliveryId)
      return rows.map((a) => ({
        attemptNo: a.attempt_no,
        attemptedAt: a.started_at.toISOString(),
        succeeded: a.succeeded,
        ...(a.status_code !== null ? { statusCode: a.status_code } : {}),
        ...(a.latency_ms !== null ? { latencyMs: a.latency_ms } : {}),
        ...(a.error_class !== null ? { errorClass: a.error_class } : {}),
        ...(a.error !== null ? { error: a.error } : {}),
        ...(a.response_body !== null ? { responseBody: a.response_body } : {}),
      }))
    },

    /** A signed `Ping` through the same queue, worker and signature as every notification. */
    async sendTest(subId: string, variant: WebhookVariant, configId: string): Promise<DeliveryView> {
      const config = await configOf(subId, variant, configId)
      if (config.status !== 'active') throw new AppError(WEBHOOK_ERRORS.WEBHOOK_CONFIG_INACTIVE)
      await deps.testQuota?.take(subId)
      const now = clock.now()
      const row = {
        delivery_id: ids('dlv_'),
        sub_id: subId,
        config_id: configId,
        event_id: ids('evt_'),
        event_name: PING_EVENT,
        package_id: null,
        sequence: null,
        occurred_at: now,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: now,
        give_up_at: null,
        created_at: now,
        updated_at: now,
      }
      await repo.insertDelivery(db, row)
      return deliveryView({
        ...row,
        locked_until: null,
        locked_by: null,
        last_status_code: null,
        last_error: null,
        delivered_at: null,
      })
    },
  }
}
