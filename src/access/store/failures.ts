import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

/** One counter's state, as the in-memory limiter keeps it (see failure-limiter.ts). */
export interface FailureState {
  failures: number
  windowEndsAt: number
  lockedUntil: number
  strikes: number
  forgetAt: number
}

/** A key to count a failure on: its limit, and its state if it has none yet (or was forgotten). */
export interface FailureKey {
  key: string
  maxFailures: number
  fresh: FailureState
}

/**
 * The latest lock among `keys` still remembered at `now` (0: none), and whether `pairKey` is
 * remembered at all. One indexed read.
 */
export async function lockOf(
  db: Executor,
  keys: string[],
  pairKey: string | undefined,
  now: number,
): Promise<{ lockedUntil: number; pairKnown: boolean }> {
  const { rows } = await sql<{ locked_until: number | null; pair_known: boolean | null }>`
    select max(locked_until) as locked_until, bool_or(key = ${pairKey ?? ''}) as pair_known
    from auth_failures where key in (${sql.join(keys)}) and forget_at > ${now}`.execute(db)
  return { lockedUntil: Number(rows[0]?.locked_until ?? 0), pairKnown: rows[0]?.pair_known === true }
}

/**
 * One failure on each key, in one atomic statement: the step of the in-memory Counter.fail done by
 * the database on the row it holds locked, so concurrent failures through several processes all
 * count. A key forgotten (forget_at passed) starts afresh; an ended window starts a new one; the
 * failure that reaches the limit locks the key for window × 2^strikes (at most maxLockMs).
 */
export async function recordFailures(
  db: Executor,
  keys: FailureKey[],
  now: number,
  windowMs: number,
  maxLockMs: number,
): Promise<void> {
  const values = keys.map(
    (k) =>
      sql`(${k.key}, ${k.maxFailures}::integer, ${k.fresh.failures}::integer, ${k.fresh.windowEndsAt}::bigint, ${k.fresh.lockedUntil}::bigint, ${k.fresh.strikes}::integer, ${k.fresh.forgetAt}::bigint)`,
  )
  const t = sql`${now}::bigint`
  const w = sql`${windowMs}::bigint`
  await sql`
    insert into auth_failures as f (key, max_failures, failures, window_ends_at, locked_until, strikes, forget_at)
    values ${sql.join(values)}
    on conflict (key) do update set (failures, window_ends_at, locked_until, strikes, forget_at) = (
      select case when s.locks then 0 else s.c end,
             case when s.locks then ${t} + s.lock_ms + ${w} else s.we end,
             case when s.locks then ${t} + s.lock_ms else s.lu end,
             case when s.locks then s.st + 1 else s.st end,
             greatest(case when s.locks then ${t} + 2 * s.lock_ms else s.fa end, case when s.locks then ${t} + s.lock_ms + ${w} else s.we end)
      from (
        select b.*, b.c >= excluded.max_failures as locks, least(${w} * power(2, least(b.st, 40))::bigint, ${maxLockMs}::bigint) as lock_ms
        from (select
          case when f.forget_at <= ${t} or f.window_ends_at <= ${t} then 0 else f.failures end + 1 as c,
          case when f.forget_at <= ${t} or f.window_ends_at <= ${t} then ${t} + ${w} else f.window_ends_at end as we,
          case when f.forget_at <= ${t} then 0 else f.locked_until end as lu,
          case when f.forget_at <= ${t} then 0 else f.strikes end as st,
          case when f.forget_at <= ${t} then 0 else f.forget_at end as fa) b
      ) s
    )`.execute(db)
}

export async function forget(db: Executor, key: string): Promise<void> {
  await sql`delete from auth_failures where key = ${key}`.execute(db)
}

/** Drops keys forgotten before `now`; returns how many. */
export async function deleteForgotten(db: Executor, now: number): Promise<number> {
  const result = await sql`delete from auth_failures where forget_at <= ${now}`.execute(db)
  return Number(result.numAffectedRows ?? 0)
}
