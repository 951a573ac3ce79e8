import { sql, type Expression, type RawBuilder } from 'kysely'
import type { PackageTallyTable } from '../../platform/db/tables.js'
import type { Executor } from '../../platform/db/transaction.js'
import { contactIdsNamed } from '../../contacts/index.js'
import { siteIdsUnder } from '../../sites/index.js'
import { likePattern, statusList } from './conditions.js'
import { SEARCHABLE, type ListFilter } from '../model/parse.js'

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

/**
 * The same number from the tallies (migration 0010), when the filter is one they hold: statuses
 * and a site (with everything under it), or statuses and a first-tier name search; no dates, no
 * other search. A sum over the tally rows of the matching keys, which does not grow with the
 * number of packages. Undefined when only counting the packages can tell.
 */
export function tallyCountQuery(db: Executor, subId: string, f: ListFilter): RawBuilder<{ n: string }> | undefined {
  if (f.startDate || f.endDate) return undefined
  let dim: PackageTallyTable['dim']
  let keys: Expression<unknown> | undefined
  if (f.search) {
    // A contact-name field that the registry says is tallied (by its contact column).
    const named = SEARCHABLE.get(f.search.field)?.tally
    if (!named || f.secondTier || f.siteId) return undefined
    dim = named
    keys = contactIdsNamed(subId, likePattern(f.search.value.toLowerCase(), f.search.position))
  } else {
    dim = 'site'
    keys = f.siteId ? siteIdsUnder(db, subId, f.siteId) : undefined
  }
  const where = sql.join(
    [
      sql`t.sub_id = ${subId}`,
      sql`t.dim = ${dim}`,
      // = any(array(…)): the keys are read once and the tallies probed by their primary key (an IN
      // subquery is planned as a join, which for a common name fragment scans every tally row).
      ...(keys ? [sql`t.key = any(array(${keys}))`] : []),
      ...(f.statuses ? [sql`t.status = any(${statusList(f.statuses)}::text[])`] : []),
    ],
    sql` and `,
  )
  return sql<{
    n: string
  }>`select coalesce(sum(x.n), 0) as n from (select t.n from package_tallies t where ${where} union all select t.n from package_tally_deltas t where ${where}) x`
}
