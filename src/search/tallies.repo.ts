import { sql } from 'kysely'
import type { Executor } from '../db/transaction.js'

/**
 * Folds up to `batch` deltas into package_tallies in one statement: the deltas deleted and their
 * sums added to their tallies, atomically, so a count sees either the deltas or the tallies that
 * hold them, never both or neither. Two folds at once only share the deltas: a delta the other
 * one deleted first is skipped. Returns how many deltas went.
 */
export async function foldTallyDeltas(db: Executor, batch: number): Promise<number> {
  const { rows } = await sql<{ folded: number }>`
    with moved as (
      delete from package_tally_deltas where ctid = any(array(select ctid from package_tally_deltas limit ${batch}))
      returning sub_id, dim, key, status, n
    ), added as (
      insert into package_tallies (sub_id, dim, key, status, n)
      select sub_id, dim, key, status, sum(n) from moved group by sub_id, dim, key, status
      -- In key order, so two folds at once lock shared tallies in the same order and never deadlock.
      order by sub_id, dim, key, status
      on conflict (sub_id, dim, key, status) do update set n = package_tallies.n + excluded.n
    )
    select count(*)::int as folded from moved`.execute(db)
  return rows[0]!.folded
}

/**
 * The tallies of one subscription's packages counted afresh, for a bulk load into an empty table
 * that ran with the tally triggers off (mailroom seed).
 */
export async function tallySubscription(db: Executor, subId: string): Promise<void> {
  await sql`
    insert into package_tallies (sub_id, dim, key, status, n)
    select p.sub_id, d.dim, d.key, p.current_status, count(*)
      from packages p
      cross join lateral (values ('site', coalesce(p.site_id, '')), ('receiver', p.receiver_id), ('sender', p.sender_id), ('given_to', p.given_to_id)) as d(dim, key)
     where p.sub_id = ${subId} and d.key is not null
     group by p.sub_id, d.dim, d.key, p.current_status
    on conflict (sub_id, dim, key, status) do update set n = package_tallies.n + excluded.n`.execute(db)
}
