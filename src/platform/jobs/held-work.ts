import { sql } from 'kysely'
import type { Executor } from '../db/transaction.js'

// Outbound work held after a restore (migration 0052; docs/backup.md): a held row is simply not due,
// and held_work remembers it for the operator's decision (app/restore/held-work.ts). Here, in
// platform/, so that the scheduled jobs of the domains can hold what they write: a reminder or a
// locker event that became due before the restore was already sent by the original.

/** A held row's next attempt: far ahead, finite (an API showing it must be able to print it). */
export const NOT_DUE = new Date('9999-12-31T00:00:00Z')

/** The latest restore of this database, if it is one. */
export async function lastRestore(db: Executor): Promise<{ restoreId: string; restoredAt: Date } | undefined> {
  const { rows } = await sql<{ restore_id: string; restored_at: Date }>`
    select restore_id, restored_at from restores order by restored_at desc limit 1`.execute(db)
  return rows[0] ? { restoreId: rows[0].restore_id, restoredAt: rows[0].restored_at } : undefined
}

/** Records `ids` (of `itemType`, `kind`: see migration 0052) as held by the restore `restoreId`, pending since `since`. */
export async function recordHeld(
  trx: Executor,
  item: { itemType: string; kind: 'email' | 'webhook'; restoreId: string; since: Date },
  ids: string[],
): Promise<void> {
  if (ids.length === 0) return
  await sql`insert into held_work (item_type, item_id, kind, restore_id, since)
            select ${item.itemType}, id, ${item.kind}, ${item.restoreId}, ${item.since}::timestamptz from unnest(${ids}::text[]) as id
            on conflict do nothing`.execute(trx)
}
