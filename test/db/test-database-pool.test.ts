import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createTestDatabase } from '../support/test-db.js'

// The tests' embedded databases are reused from file to file (test/support/pglite-pool.ts): what a
// file wrote, or changed in the schema, must never reach the next one. (On PostgreSQL each is a new
// database made from the template: the same must hold.)
describe('a test database used again', () => {
  it('comes back as the template has it: written rows gone, seeded rows and identities as they were', async () => {
    const first = await createTestDatabase()
    const before = await sql<{ n: number }>`select count(*)::int as n from carriers`.execute(first.handle.db)
    await sql`insert into subscriptions (sub_id, name) values ('sub-pool', 'used')`.execute(first.handle.db)
    await sql`delete from carriers where true`.execute(first.handle.db)
    await first.drop()

    const second = await createTestDatabase()
    const after = await sql<{ subs: number; carriers: number }>`
      select (select count(*) from subscriptions)::int as subs, (select count(*) from carriers)::int as carriers`.execute(
      second.handle.db,
    )
    expect(after.rows[0]).toEqual({ subs: 0, carriers: before.rows[0]!.n })
    expect(before.rows[0]!.n).toBeGreaterThan(0)
    await second.drop()
  })

  it('is not handed out again once a file changed its schema or its session', async () => {
    const first = await createTestDatabase()
    await sql`create table pool_probe (x int)`.execute(first.handle.db)
    await first.drop()
    const second = await createTestDatabase()
    const { rows } = await sql<{ t: string | null }>`select to_regclass('public.pool_probe')::text as t`.execute(
      second.handle.db,
    )
    expect(rows[0]!.t).toBeNull()
    await sql`set statement_timeout = 12345`.execute(second.handle.db)
    await second.drop()
    const third = await createTestDatabase()
    const setting = await sql<{ v: string }>`select current_setting('statement_timeout') as v`.execute(third.handle.db)
    expect(setting.rows[0]!.v).not.toBe('12345ms')
    await third.drop()
  })
})
