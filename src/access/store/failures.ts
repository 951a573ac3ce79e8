import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

/** A key an attempt counts on, with its limit. */
export interface KeyLimit {
  key: string
  max: number
}

/**
 * Counts one attempt on each key that admits it, in one atomic statement: the step `admitted` of
 * access/model/failure-steps.ts, done by the database on the row it holds locked, so concurrent
 * attempts through any number of processes are counted one after the other and at most the limit
 * of them get in. A key locked, or whose window's count is at its limit, is left as it was and is
 * not returned. Returns the count after this attempt of each key that admitted it.
 */
export async function admit(
  db: Executor,
  keys: KeyLimit[],
  now: number,
  windowMs: number,
): Promise<Map<string, number>> {
  const t = sql`${now}::bigint`
  const w = sql`${windowMs}::bigint`
  const values = keys.map(
    (k) => sql`(${k.key}, ${k.max}::integer, 1, ${now + windowMs}::bigint, 0::bigint, 0, ${now + windowMs}::bigint)`,
  )
  // Forgotten: starts afresh. Window ended: count from 0 in a new window.
  const forgotten = sql`f.forget_at <= ${t}`
  const restarts = sql`(f.forget_at <= ${t} or f.window_ends_at <= ${t})`
  const { rows } = await sql<{ key: string; failures: number }>`
    insert into auth_failures as f (key, max_failures, failures, window_ends_at, locked_until, strikes, forget_at)
    values ${sql.join(values)}
    on conflict (key) do update set
      max_failures = excluded.max_failures,
      failures = case when ${restarts} then 0 else f.failures end + 1,
      window_ends_at = case when ${restarts} then ${t} + ${w} else f.window_ends_at end,
      locked_until = case when ${forgotten} then 0 else f.locked_until end,
      strikes = case when ${forgotten} then 0 else f.strikes end,
      forget_at = greatest(case when ${forgotten} then 0 else f.forget_at end,
                           case when ${restarts} then ${t} + ${w} else f.window_ends_at end)
    where ${forgotten}
       or (f.locked_until <= ${t} and (f.window_ends_at <= ${t} or f.failures < excluded.max_failures))
    returning key, failures`.execute(db)
  return new Map(rows.map((r) => [r.key, Number(r.failures)]))
}

/** Why keys refused: the latest lock among them, else the end of their window (0: none remembered). */
export async function refusalOf(
  db: Executor,
  keys: string[],
  now: number,
): Promise<Array<{ key: string; lockedUntil: number; windowEndsAt: number }>> {
  const { rows } = await sql<{ key: string; locked_until: string; window_ends_at: string }>`
    select key, locked_until, window_ends_at from auth_failures
    where key in (${sql.join(keys)}) and forget_at > ${now}`.execute(db)
  return rows.map((r) => ({ key: r.key, lockedUntil: Number(r.locked_until), windowEndsAt: Number(r.window_ends_at) }))
}

/**
 * A failed attempt filled these keys: each one still at its limit and not yet locked locks for
 * window × 2^strikes (at most maxLockMs), and counts again from 0 after the lock. One statement.
 */
export async function lock(
  db: Executor,
  keys: string[],
  now: number,
  windowMs: number,
  maxLockMs: number,
): Promise<void> {
  const t = sql`${now}::bigint`
  const w = sql`${windowMs}::bigint`
  const lockMs = sql`least(${w} * power(2, least(strikes, 40))::bigint, ${maxLockMs}::bigint)`
  await sql`
    update auth_failures set
      failures = 0,
      strikes = strikes + 1,
      locked_until = ${t} + ${lockMs},
      window_ends_at = ${t} + ${lockMs} + ${w},
      forget_at = greatest(${t} + 2 * ${lockMs}, ${t} + ${lockMs} + ${w})
    where key in (${sql.join(keys)}) and failures >= max_failures and locked_until <= ${t} and forget_at > ${t}`.execute(
    db,
  )
}

/**
 * The outcome of a success, in one statement: the keys to forget go (the pair, the device), the
 * others get this attempt's count back, and a pair to remember is known until `knownUntil`. A known
 * pair is a row of its own (`k:` prefix) that never counts: swept like the others when forgotten.
 */
export async function succeed(
  db: Executor,
  forget: string[],
  giveBack: string[],
  known: { key: string; until: number } | undefined,
): Promise<void> {
  const none = sql`select 1 where false`
  await sql`
    with forgotten as (${forget.length ? sql`delete from auth_failures where key in (${sql.join(forget)})` : none}),
    remembered as (${
      known
        ? sql`insert into auth_failures (key, max_failures, failures, window_ends_at, locked_until, strikes, forget_at)
              values (${known.key}, 0, 0, 0, 0, 0, ${known.until}::bigint)
              on conflict (key) do update set forget_at = excluded.forget_at`
        : none
    })
    update auth_failures set failures = greatest(failures - 1, 0)
    where key in (${sql.join(giveBack.length ? giveBack : [''])})`.execute(db)
}

/** Until when a pair is known (0: not known). */
export async function knownUntil(db: Executor, key: string, now: number): Promise<number> {
  const { rows } = await sql<{ forget_at: string }>`
    select forget_at from auth_failures where key = ${key} and forget_at > ${now}`.execute(db)
  return rows.length ? Number(rows[0]!.forget_at) : 0
}

/** Drops keys forgotten before `now`; returns how many. */
export async function deleteForgotten(db: Executor, now: number): Promise<number> {
  const result = await sql`delete from auth_failures where forget_at <= ${now}`.execute(db)
  return Number(result.numAffectedRows ?? 0)
}
