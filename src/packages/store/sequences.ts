import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

/**
 * Takes the next `count` event sequences of each package (their rows are locked by the caller); the
 * first of them by package. `packages.event_count` is the packages domain's column: events written
 * by others about a package (notification outcomes, locker jobs) take their sequences here.
 */
export async function nextSequences(trx: Executor, packageIds: string[], count = 1): Promise<Map<string, number>> {
  if (packageIds.length === 0) return new Map()
  const rows = await trx
    .updateTable('packages')
    .set((eb) => ({ event_count: eb('event_count', '+', count) }))
    .where(sql<boolean>`package_id = any(${packageIds}::text[])`)
    .returning(['package_id', 'event_count'])
    .execute()
  return new Map(rows.map((r) => [r.package_id, r.event_count - count + 1]))
}
