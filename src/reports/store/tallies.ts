import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../../platform/db/database.js'
import type { Executor } from '../../platform/db/transaction.js'
import { DWELL_BOUNDS } from '../model/report.js'
import './tables.js'

/** One tally of a period: a volume cell, a dwell bucket, a clerk or a day's notifications. */
export interface DayTally {
  day: string
  kind: string
  siteId: string
  carrierId: string
  bucket: number
  n: number
}

const BUCKETS = DWELL_BOUNDS.length + 1

/**
 * Narrow deltas (sub_id, day, kind, site_id, carrier_id, bucket, n) widened to the grains of
 * report_days (migration 0080): a = received / sent, b = handed over / failed, h = the dwell
 * histogram of the 'all' and 'site' grains. The fold and a report's read of unfolded deltas share it.
 */
function wide(src: RawBuilder<unknown>) {
  const h = Array.from(
    { length: BUCKETS },
    (_, i) => `coalesce(sum(s.n) filter (where s.kind = 'handed_over' and s.bucket = ${i}), 0)`,
  ).join(', ')
  return sql`
    select s.sub_id, g.grain, s.day, g.key, g.key2,
           coalesce(sum(s.n) filter (where s.kind in ('received', 'received_by', 'notified_sent')), 0) as a,
           coalesce(sum(s.n) filter (where s.kind in ('handed_over', 'handed_over_by', 'notified_failed')), 0) as b,
           case when g.grain in ('all', 'site') then array[${sql.raw(h)}]::bigint[] end as h
      -- Summed narrow first: the grains fan out the span's distinct facts, not each delta.
      from (select sub_id, day, kind, site_id, carrier_id, bucket, sum(n) as n from (${src}) x
             group by sub_id, day, kind, site_id, carrier_id, bucket) s cross join lateral (
        select 'all' as grain, '' as key, '' as key2 where s.kind in ('received', 'handed_over')
        union all select 'site', s.site_id, '' where s.kind in ('received', 'handed_over')
        union all select 'carrier', s.carrier_id, '' where s.kind in ('received', 'handed_over')
        union all select 'site_carrier', s.site_id, s.carrier_id where s.kind in ('received', 'handed_over')
        union all select 'clerk', s.site_id, '' where s.kind in ('received_by', 'handed_over_by')
        union all select 'notifications', '', '' where s.kind in ('notified_sent', 'notified_failed')
      ) g
     group by s.sub_id, g.grain, s.day, g.key, g.key2`
}

/**
 * The report of the days from..to (dates, inclusive) as tallies per period (its first day in
 * `day`): volume cells (kinds 'received' and 'handed_over', keyed by site or carrier), dwell buckets
 * ('dwell'), clerks ('received_by', 'handed_over_by', over the whole span) and notifications
 * ('notified_sent', 'notified_failed', per day). One statement reads the grains it needs off
 * report_days_pk (a (sub_id, grain, day) range each: about 2,000 rows for a month of 50 sites) and
 * the deltas not folded yet. `siteIds` keeps the volume and dwell of those sites only.
 */
export async function periodTallies(
  ex: Executor,
  subId: string,
  q: { from: string; to: string; period: 'day' | 'week'; groupBy: 'site' | 'carrier'; siteIds?: string[] },
): Promise<DayTally[]> {
  const sites = q.siteIds
  const volume = q.groupBy === 'site' ? 'site' : sites ? 'site_carrier' : 'carrier'
  const dwell = sites ? 'site' : 'all'
  const grains = [...new Set([volume, dwell, 'clerk', 'notifications'])]
  const span = sql`sub_id = ${subId} and day between ${q.from}::date and ${q.to}::date`
  const keep = sites ? sql`and (grain not in ('site', 'site_carrier') or key = any(${sites}::text[]))` : sql``
  const deltas = sql`select sub_id, day, kind, site_id, carrier_id, bucket, n from report_tally_deltas where ${span}`
  const period = sql`to_char(date_trunc(${q.period}, day), 'YYYY-MM-DD')`
  const { rows } = await sql<{ part: string; day: string; key: string; bucket: number; a: string; b: string }>`
    with t as materialized (
      select grain, day, key, key2, a, b, h from report_days where ${span} and grain = any(${grains}::text[]) ${keep}
      union all
      select grain, day, key, key2, a, b, h from (${wide(deltas)}) w where grain = any(${grains}::text[]) ${keep}
    )
    select 'volume' as part, ${period} as day, case when grain = 'site_carrier' then key2 else key end as key,
           -1 as bucket, sum(a) as a, sum(b) as b
      from t where grain = ${volume} group by 2, 3 having sum(a) <> 0 or sum(b) <> 0
    union all
    select 'dwell', ${period}, '', (u.i - 1)::int, sum(u.x), 0
      from t cross join lateral unnest(t.h) with ordinality u(x, i)
     where grain = ${dwell} group by 2, 4 having sum(u.x) <> 0
    union all
    select 'clerk', '', key, -1, sum(a), sum(b) from t where grain = 'clerk' group by 3 having sum(a) <> 0 or sum(b) <> 0
    union all
    select 'notifications', to_char(day, 'YYYY-MM-DD'), '', -1, sum(a), sum(b)
      from t where grain = 'notifications' group by 2 having sum(a) <> 0 or sum(b) <> 0`.execute(ex)
  const out: DayTally[] = []
  const push = (r: (typeof rows)[number], kind: string, n: string, bucket = -1) => {
    if (Number(n) !== 0) out.push({ day: r.day, kind, siteId: r.key, carrierId: r.key, bucket, n: Number(n) })
  }
  for (const r of rows) {
    if (r.part === 'volume') {
      // A cell whose arrivals and hand-overs both cancelled is left out by the having.
      out.push({ day: r.day, kind: 'received', siteId: r.key, carrierId: r.key, bucket: -1, n: Number(r.a) })
      push(r, 'handed_over', r.b)
    } else if (r.part === 'dwell') push(r, 'dwell', r.a, r.bucket)
    else if (r.part === 'clerk') {
      push(r, 'received_by', r.a)
      push(r, 'handed_over_by', r.b)
    } else {
      out.push({ day: r.day, kind: 'notified', siteId: '', carrierId: '', bucket: 0, n: Number(r.a) })
      out.push({ day: r.day, kind: 'notified', siteId: '', carrierId: '', bucket: 1, n: Number(r.b) })
    }
  }
  return out
}

/** The sites with arrivals or hand-overs in the days from..to (to name them under a site filter). */
export async function sitesSeen(ex: Executor, subId: string, from: string, to: string): Promise<string[]> {
  const span = sql`sub_id = ${subId} and day between ${from}::date and ${to}::date`
  const { rows } = await sql<{ key: string }>`
    select key from report_days where ${span} and grain = 'site'
    union
    select site_id from report_tally_deltas where ${span} and kind in ('received', 'handed_over')`.execute(ex)
  return rows.map((r) => r.key)
}

/** Folds up to `batch` deltas into report_days in one statement (as search's tallies, migration 0010). */
async function foldOnce(db: Executor, batch: number): Promise<number> {
  const { rows } = await sql<{ folded: number }>`
    with moved as (
      delete from report_tally_deltas where ctid = any(array(select ctid from report_tally_deltas limit ${batch}))
      returning sub_id, day, kind, site_id, carrier_id, bucket, n
    ), added as (
      insert into report_days (sub_id, grain, day, key, key2, a, b, h)
      select * from (${wide(sql`select * from moved`)}) w
      -- In key order, so two folds at once lock shared rows in the same order and never deadlock.
      order by sub_id, grain, day, key, key2
      on conflict (sub_id, grain, day, key, key2) do update set
        a = report_days.a + excluded.a,
        b = report_days.b + excluded.b,
        h = case when report_days.h is null then excluded.h
                 else array(select x + y from unnest(report_days.h, excluded.h) with ordinality u(x, y, i) order by i) end
    )
    select count(*)::int as folded from moved`.execute(db)
  return rows[0]!.folded
}

/** Folds every pending report delta, in batches; returns how many went. */
export async function foldReportTallies(db: Db, batch = 5_000): Promise<number> {
  let total = 0
  for (let n = await foldOnce(db, batch); ; n = await foldOnce(db, batch)) {
    total += n
    if (n < batch) return total
  }
}
