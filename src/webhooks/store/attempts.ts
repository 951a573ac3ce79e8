import type { Insertable } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { WebhookAttemptRow, WebhookAttemptTable } from './tables.js'
import { inStatementChunks } from '../../platform/db/statement-limits.js'

// The webhook_attempts table: the attempt log, written by the worker, read by the API.

export async function insertAttempts(trx: Executor, rows: Insertable<WebhookAttemptTable>[]): Promise<void> {
  await inStatementChunks(rows, (chunk) => trx.insertInto('webhook_attempts').values(chunk).execute())
}

export async function listAttempts(db: Executor, subId: string, deliveryId: string): Promise<WebhookAttemptRow[]> {
  return db
    .selectFrom('webhook_attempts')
    .select([
      'attempt_id',
      'delivery_id',
      'sub_id',
      'config_id',
      'attempt_no',
      'started_at',
      'latency_ms',
      'status_code',
      'succeeded',
      'error_class',
      'error',
      'response_body',
    ])
    .where('sub_id', '=', subId)
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt_no')
    .orderBy('started_at')
    .execute()
}

/** GET one's extras: when the last 2xx attempt was made, and the failed attempts since the last success. */
export async function configStats(
  db: Executor,
  subId: string,
  configId: string,
  failingSince: Date | null,
): Promise<{ lastDeliveryAt: Date | null; failureCount: number }> {
  // From the attempt log (indexed by configuration and time) rather than an index on deliveries
  // that every completed delivery would have to maintain.
  const last = await db
    .selectFrom('webhook_attempts')
    .select('started_at')
    .where('config_id', '=', configId)
    .where('sub_id', '=', subId)
    .where('succeeded', '=', true)
    .orderBy('started_at', 'desc')
    .limit(1)
    .executeTakeFirst()
  let failureCount = 0
  if (failingSince) {
    const row = await db
      .selectFrom('webhook_attempts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('sub_id', '=', subId)
      .where('config_id', '=', configId)
      .where('started_at', '>=', failingSince)
      .where('succeeded', '=', false)
      .executeTakeFirstOrThrow()
    failureCount = Number(row.n)
  }
  return { lastDeliveryAt: last?.started_at ?? null, failureCount }
}
