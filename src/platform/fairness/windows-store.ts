import { sql } from 'kysely'
import type { Db } from '../db/database.js'

export interface WindowCount {
  /** Hits in the current window, this one included. */
  hits: number
  /** When the current window ends (epoch ms). */
  endsAt: number
}

/** `amount` hits on `key`: added to its current window, or the start of a new window of `windowMs` if that one ended. One atomic statement. */
export async function hit(db: Db, key: string, windowMs: number, now: number, amount = 1): Promise<WindowCount> {
  const { rows } = await sql<{ hits: number; window_ends_at: number }>`
    insert into rate_limit_windows as w (key, window_ends_at, hits) values (${key}, ${now + windowMs}, ${amount})
    on conflict (key) do update set
      hits = case when w.window_ends_at <= ${now} then ${amount} else w.hits + ${amount} end,
      window_ends_at = case when w.window_ends_at <= ${now} then ${now + windowMs} else w.window_ends_at end
    returning hits, window_ends_at`.execute(db)
  const row = rows[0]!
  return { hits: Number(row.hits), endsAt: Number(row.window_ends_at) }
}

export interface WindowHits {
  key: string
  windowMs: number
  amount: number
}

/**
 * `hit` for many keys in one statement (the rate limiter's background sync): the keys, windows and
 * amounts travel as three array parameters, so the statement has three whatever the batch's size.
 * Returns each key's count and window end.
 */
export async function hitMany(db: Db, batch: readonly WindowHits[], now: number): Promise<Map<string, WindowCount>> {
  // One row per key (a key twice in one statement would make the upsert fail), in key order so
  // two processes' syncs lock shared rows in the same order.
  const merged = new Map<string, WindowHits>()
  for (const h of batch) {
    const seen = merged.get(h.key)
    merged.set(h.key, seen ? { ...seen, amount: seen.amount + h.amount } : h)
  }
  const rows = [...merged.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  const { rows: counted } = await sql<{ key: string; hits: number; window_ends_at: number }>`
    insert into rate_limit_windows as w (key, window_ends_at, hits)
    select k, ${now}::bigint + ms, n
      from unnest(${rows.map((r) => r.key)}::text[], ${rows.map((r) => r.windowMs)}::bigint[], ${rows.map((r) => r.amount)}::bigint[]) as t(k, ms, n)
    on conflict (key) do update set
      hits = case when w.window_ends_at <= ${now} then excluded.hits else w.hits + excluded.hits end,
      window_ends_at = case when w.window_ends_at <= ${now} then excluded.window_ends_at else w.window_ends_at end
    returning key, hits, window_ends_at`.execute(db)
  return new Map(counted.map((r) => [r.key, { hits: Number(r.hits), endsAt: Number(r.window_ends_at) }]))
}

/**
 * Gives back `amount` hits to the window of `key` that ends at `endsAt`, and to no other: a window that
 * ended meanwhile is gone, and the next one must not start below zero.
 */
export async function refund(db: Db, key: string, endsAt: number, amount: number): Promise<void> {
  await sql`update rate_limit_windows set hits = hits - ${amount} where key = ${key} and window_ends_at = ${endsAt}`.execute(
    db,
  )
}

/** The current count of `key` without counting (0 when its window ended). */
export async function peek(db: Db, key: string, now: number): Promise<WindowCount> {
  const { rows } = await sql<{
    hits: number
    window_ends_at: number
  }>`select hits, window_ends_at from rate_limit_windows where key = ${key} and window_ends_at > ${now}`.execute(db)
  const row = rows[0]
  return row ? { hits: Number(row.hits), endsAt: Number(row.window_ends_at) } : { hits: 0, endsAt: now }
}

/** `peek` for many keys in one statement; keys whose window ended are absent. */
export async function peekMany(db: Db, keys: readonly string[], now: number): Promise<Map<string, WindowCount>> {
  const { rows } = await sql<{ key: string; hits: number; window_ends_at: number }>`
    select key, hits, window_ends_at from rate_limit_windows where key = any(${keys}::text[]) and window_ends_at > ${now}`.execute(
    db,
  )
  return new Map(rows.map((r) => [r.key, { hits: Number(r.hits), endsAt: Number(r.window_ends_at) }]))
}

/** Drops windows that ended before `before`; returns how many. */
export async function deleteEnded(db: Db, before: number): Promise<number> {
  const result = await sql`delete from rate_limit_windows where window_ends_at < ${before}`.execute(db)
  return Number(result.numAffectedRows ?? 0)
}
