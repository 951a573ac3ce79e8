import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import { FINISHED } from '../model/statuses.js'
import { PACKAGE_COLUMNS, WAITING_EXCLUDED, columns, historyOf, jsonRows, type NewPackage } from './columns.js'

// Pickup codes chosen in the add's own statement, and settled after it (issue 17.4): see insertNewPackages.

/** A package a statement wrote, with the code it got and whether that code is one the statement registered. */
export interface CodeOutcome {
  package_id: string
  sub_id: string
  receiver_id: string | null
  pickup_code: string | null
  at: Date
  fresh: boolean
}

/**
 * After a statement that chose codes (`wanted`: the ids that came with a candidate): packages
 * whose candidate was taken get another, one per receiver as the candidate was (assignPickupCode);
 * then each receiver for whom a new code was registered is checked under its lock
 * (adoptCommittedCodes).
 */
export async function settleCodes(
  db: Executor,
  written: readonly CodeOutcome[],
  wanted: ReadonlySet<string>,
  newPickupCode: (() => string) | undefined,
): Promise<void> {
  const made = new Map<string, { sub_id: string; receiver_id: string; code: string }>()
  const uncoded = new Map<string, CodeOutcome[]>()
  for (const r of written) {
    if (!wanted.has(r.package_id)) continue
    const key = `${r.sub_id}\n${r.receiver_id ?? r.package_id}`
    if (r.pickup_code === null) uncoded.set(key, [...(uncoded.get(key) ?? []), r])
    else if (r.fresh && r.receiver_id !== null)
      made.set(key, { sub_id: r.sub_id, receiver_id: r.receiver_id, code: r.pickup_code })
  }
  if (newPickupCode)
    for (const [key, rows] of uncoded) {
      const r = rows[0]!
      for (let tries = 0; tries < 5; tries++) {
        const code = newPickupCode()
        if (
          !(await assignPickupCode(
            db,
            r,
            rows.map((p) => p.package_id),
            code,
            new Date(r.at),
          ))
        )
          continue
        if (r.receiver_id !== null) made.set(key, { sub_id: r.sub_id, receiver_id: r.receiver_id, code })
        break
      }
    }
  await adoptCommittedCodes(db, [...made.values()])
}

/**
 * The rows of one statement, those of one receiver sharing the first one's candidate code (each
 * would otherwise register a code of its own: the statement's CTEs do not see each other's rows).
 */
export function shareCandidates<T extends { sub_id: string; receiver_id?: string | null; pickup_code?: string | null }>(
  rows: readonly T[],
): T[] {
  const shared = new Map<string, string>()
  return rows.map((p) => {
    if (!p.pickup_code || !p.receiver_id) return p
    const key = `${p.sub_id}\n${p.receiver_id}`
    const code = shared.get(key) ?? p.pickup_code
    shared.set(key, code)
    return code === p.pickup_code ? p : { ...p, pickup_code: code }
  })
}

/**
 * How a statement's rows with a candidate code (CTE `codes_in`: sub_id, receiver_id, pickup_code,
 * created_at) get their code: `held`, the code of each receiver's latest waiting package; `fresh`,
 * the candidates of the others, registered in pickup_codes (a taken one is skipped). A row's code
 * is then coalesce(h.pickup_code, f.code).
 */
export const CODE_CHOICE = sql`held as (
      select w.sub_id, w.receiver_id, p.pickup_code
      from (select distinct sub_id, receiver_id from codes_in where pickup_code is not null and receiver_id is not null) w
      -- One index probe per receiver (packages_waiting_code_idx), however many parcels it has.
      cross join lateral (
        select p.pickup_code from packages p
        where p.sub_id = w.sub_id and p.receiver_id = w.receiver_id
          and p.pickup_code is not null and not p.archived and p.current_status not in (${sql.join(WAITING_EXCLUDED)})
        order by p.created_at desc
        limit 1
      ) p
    ), fresh as (
      insert into pickup_codes (sub_id, code, contact_id, created_at)
      select distinct on (i.sub_id, i.pickup_code) i.sub_id, i.pickup_code, i.receiver_id, i.created_at
      from codes_in i
      where i.pickup_code is not null
        and not exists (select 1 from held h where h.sub_id = i.sub_id and h.receiver_id = i.receiver_id)
      on conflict do nothing
      returning sub_id, code
    )`

/** insertNewPackages' statement: each package written, with its code (null: none, or its candidate was taken). */
export async function insertWithCodes(db: Executor, adds: readonly NewPackage[]) {
  const packages = shareCandidates(adds.map((a) => a.package))
  // A row that names no flags has none, as the column's default says (the record below would give null).
  const inserted = PACKAGE_COLUMNS.map((c) =>
    c === 'pickup_code'
      ? sql`coalesce(h.pickup_code, f.code)`
      : c === 'flags'
        ? sql`coalesce(r.flags, '{}')`
        : sql.raw(`r.${c}`),
  )
  return sql<CodeOutcome>`
    with input as (
      select * from jsonb_populate_recordset(null::packages, ${jsonRows(packages, 'custom_fields')}::jsonb)
    ), codes_in as (
      select sub_id, receiver_id, pickup_code, created_at from input
    ), ${CODE_CHOICE}, new_packages as (
      insert into packages (${columns(PACKAGE_COLUMNS)})
      select ${sql.join(inserted)} from input r
      left join held h on r.pickup_code is not null and h.sub_id = r.sub_id and h.receiver_id = r.receiver_id
      left join fresh f on f.sub_id = r.sub_id and f.code = r.pickup_code
      on conflict (sub_id, tracking_number) where not archived do nothing
      returning package_id, sub_id, receiver_id, pickup_code, created_at
    ), ${historyOf('new_packages', adds)}
    select n.package_id, n.sub_id, n.receiver_id, n.pickup_code, n.created_at as at,
      exists (select 1 from fresh f where f.sub_id = n.sub_id and f.code = n.pickup_code) as fresh
    from new_packages n`.execute(db)
}

/**
 * One waiting code per receiver, whatever raced. A statement that found no waiting code for a
 * receiver registered a new one; so may have a concurrent statement (another batch, another
 * process), whose snapshot did not show this one's rows either. Each such writer takes the
 * receiver's lock after its statement and holds it until its commit, then looks again with a
 * fresh snapshot: the second of two sees the first's committed parcels and moves its own (still
 * uncommitted: nobody saw them under the new code) to that code. Only writers that made a new code
 * lock; those that joined a waiting code write without waiting for anyone, and a lock holder waits
 * for nothing but its commit (no deadlock). Keys in key order, so two writers never wait for each
 * other in a cycle; class 727003 beside the other advisory locks of the service (keys 727001,
 * 727002, 727004, 727005). Needs the caller's transaction (packages/model/writes.ts opens one).
 */
export async function adoptCommittedCodes(
  trx: Executor,
  made: ReadonlyArray<{ sub_id: string; receiver_id: string; code: string }>,
): Promise<void> {
  if (made.length === 0) return
  const subs = made.map((m) => m.sub_id)
  const receivers = made.map((m) => m.receiver_id)
  await sql`select count(*) from (
      select pg_advisory_xact_lock(727003, hashtext(o.sub_id || E'\n' || o.receiver_id)) from (
        select distinct u.sub_id, u.receiver_id from unnest(${subs}::text[], ${receivers}::text[]) u(sub_id, receiver_id)
        order by u.sub_id, u.receiver_id
      ) o
    ) l`.execute(trx)
  // A new statement: its snapshot shows what the previous holders of these locks committed.
  await sql`
    update packages p set pickup_code = o.code
    from (
      select u.sub_id, u.receiver_id, u.code as ours, q.pickup_code as code
      from unnest(${subs}::text[], ${receivers}::text[], ${made.map((m) => m.code)}::text[]) u(sub_id, receiver_id, code)
      cross join lateral (
        select q.pickup_code from packages q
        where q.sub_id = u.sub_id and q.receiver_id = u.receiver_id and q.pickup_code is not null and q.pickup_code <> u.code
          and not q.archived and q.current_status not in (${sql.join(WAITING_EXCLUDED)})
        order by q.created_at desc
        limit 1
      ) q
    ) o
    where p.sub_id = o.sub_id and p.pickup_code = o.ours and p.receiver_id = o.receiver_id`.execute(trx)
}

/**
 * Registers `code` for packages written without one (their candidate was taken) and gives it to
 * them. False: this code is taken too; the caller draws another.
 */
export async function assignPickupCode(
  db: Executor,
  pkg: { sub_id: string; receiver_id: string | null },
  packageIds: readonly string[],
  code: string,
  now: Date,
): Promise<boolean> {
  const { rows } = await sql<{ code: string }>`
    with fresh as (
      insert into pickup_codes (sub_id, code, contact_id, created_at)
      values (${pkg.sub_id}, ${code}, ${pkg.receiver_id}, ${now})
      on conflict do nothing
      returning code
    )
    update packages set pickup_code = (select code from fresh)
    where sub_id = ${pkg.sub_id} and package_id = any(${packageIds}::text[]) and pickup_code is null and exists (select 1 from fresh)
    returning pickup_code as code`.execute(db)
  return rows.length > 0
}

/**
 * Deletes up to `limit` registered pickup codes (pickup_codes) that no package needs any more:
 * handed out before `before`, and every package under them finished (FINISHED statuses, or
 * archived) and unchanged since `before`. A code an IN_TRANSIT package keeps is kept: the package
 * shows it again when it arrives. Returns how many went.
 */
export async function purgeFinishedCodes(db: Executor, before: Date, limit: number): Promise<number> {
  const { rows } = await sql<{ code: string }>`
    delete from pickup_codes pc
    where (pc.sub_id, pc.code) in (
      select c.sub_id, c.code from pickup_codes c
      where c.created_at < ${before}::timestamptz
        and not exists (
          select 1 from packages p
          where p.sub_id = c.sub_id and p.pickup_code = c.code
            and (p.updated_at >= ${before}::timestamptz
                 or (not p.archived and p.current_status not in (${sql.join([...FINISHED])}))))
      order by c.created_at
      limit ${limit})
    returning pc.code`.execute(db)
  return rows.length
}

/** The sites of the DELIVERED activities that name each pickup, once per (pickup, site). */
export function deliverySitesOfPickups(db: Executor, subId: string, pickupIds: string[]) {
  if (pickupIds.length === 0) return Promise.resolve([])
  return db
    .selectFrom('package_activities')
    .select(['pickup_id', 'site_id'])
    .distinct()
    .where('sub_id', '=', subId)
    .where('pickup_id', 'in', pickupIds)
    .where('site_id', 'is not', null)
    .$narrowType<{ pickup_id: string; site_id: string }>()
    .execute()
}
