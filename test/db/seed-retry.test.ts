import { sql } from 'kysely'
import { expect, it } from 'vitest'
import { seedSubscription } from '../../src/app/seed/seed.js'
import { useTestApp } from '../support/use-test-app.js'

// The seed's transactions are run again when PostgreSQL aborts one as a deadlock's victim (issue
// 31.4): what they return and report must come from the run that committed, not from every run.
// A trigger provokes the conflict (SQLSTATE 40001) once, on both engines: at a shelf's insert, and at
// the commit of a package batch (a deferred trigger: after the batch was written and counted).
const t = useTestApp()

async function failOnce(table: string, when: string, deferred: boolean, nth = 1): Promise<void> {
  const db = t.ctx.db
  await sql.raw(`create sequence if not exists ${table}_conflict_once`).execute(db)
  await sql
    .raw(
      `create or replace function ${table}_conflict_once() returns trigger language plpgsql as $$
       begin
         if ${when} and nextval('${table}_conflict_once') = ${nth} then
           raise exception 'provoked conflict' using errcode = '40001';
         end if;
         return new;
       end $$`,
    )
    .execute(db)
  await sql
    .raw(
      deferred
        ? `create constraint trigger ${table}_conflict_once after insert on ${table} deferrable initially deferred
           for each row execute function ${table}_conflict_once()`
        : `create trigger ${table}_conflict_once before insert on ${table} for each row execute function ${table}_conflict_once()`,
    )
    .execute(db)
}

it.each([false, true])(
  'returns the shelves and reports the packages of the committed run only (bulk load: %s)',
  async (bulk) => {
    const db = t.ctx.db
    await sql.raw('drop trigger if exists inbound_sites_conflict_once on inbound_sites').execute(db)
    await sql.raw('drop trigger if exists packages_conflict_once on packages').execute(db)
    await sql.raw('drop sequence if exists inbound_sites_conflict_once').execute(db)
    await sql.raw('drop sequence if exists packages_conflict_once').execute(db)
    await failOnce('inbound_sites', `new.name = 'Shelf 3'`, false)
    // At the commit of the first batch; in a bulk load (one transaction, which a deferred trigger
    // would stop from building indexes), in its third batch.
    await failOnce('packages', 'true', !bulk, bulk ? 250 : 1)
    const progress: number[] = []
    const seeded = await seedSubscription(db, t.ctx.clients, {
      subscription: `retried-${bulk}`,
      packages: 300,
      contacts: 40,
      batchSize: 100,
      bulk,
      onProgress: (done) => progress.push(done),
    })
    expect(
      Number((await sql<{ n: number }>`select nextval('inbound_sites_conflict_once') as n`.execute(db)).rows[0]!.n),
    ).toBeGreaterThan(2)
    expect(
      Number((await sql<{ n: number }>`select nextval('packages_conflict_once') as n`.execute(db)).rows[0]!.n),
    ).toBeGreaterThan(300)
    const { rows } = await sql<{
      n: number
    }>`select count(*)::int as n from packages where sub_id = ${seeded.subId}`.execute(db)
    expect(rows[0]!.n).toBe(300)
    expect(Math.max(...progress)).toBe(300)
    expect(progress.at(-1)).toBe(300)
  },
)
