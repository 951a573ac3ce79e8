import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { migrateToLatest } from '../../src/platform/db/migrate.js'
import { migrateDownThrough, migrateUpTo, MIGRATIONS, schemaOf } from '../support/migrations.js'
import { useTestDatabase } from '../support/use-test-app.js'

const db = useTestDatabase({ migrate: false })

async function tables(): Promise<string[]> {
  const { rows } = await sql<{
    t: string
  }>`select table_name as t from information_schema.tables where table_schema = current_schema() and table_name not like 'kysely_%' order by 1`.execute(
    db.handle.db,
  )
  return rows.map((r) => r.t)
}

// One migration at a time, in order, each named: `up`, then `down` leaves the schema as `up` found
// it, then `up` again makes it as the first `up` did (STYLE.md, habit 4).
describe('each migration goes up, down and up again', () => {
  it.each(MIGRATIONS)('%s', async (name) => {
    const before = await schemaOf(db.handle.db)
    expect(await migrateUpTo(db.handle.db, name)).toEqual([`Up ${name}`])
    const after = await schemaOf(db.handle.db)
    expect(await migrateDownThrough(db.handle.db, name)).toEqual([`Down ${name}`])
    expect(await schemaOf(db.handle.db)).toEqual(before)
    expect(await migrateUpTo(db.handle.db, name)).toEqual([`Up ${name}`])
    expect(await schemaOf(db.handle.db)).toEqual(after)
  })
})

// The steps above, composed, are the whole way down and up again; this is where they end.
it('leaves the schema complete, with nothing left to run', async () => {
  expect(await migrateToLatest(db.handle.db)).toEqual([])
  expect(await tables()).toEqual(expect.arrayContaining(['api_clients', 'signing_keys', 'subscriptions']))
})
