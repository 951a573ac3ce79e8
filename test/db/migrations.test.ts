import { sql } from 'kysely'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { migrateDown, migrateToLatest } from '../../src/db/migrate.js'
import { migrations } from '../../src/db/migrations/index.js'
import { createTestDatabase } from '../support/test-db.js'

let db: Awaited<ReturnType<typeof createTestDatabase>>
beforeAll(async () => {
  db = await createTestDatabase({ migrate: false })
})
afterAll(() => db.drop())

async function tables(): Promise<string[]> {
  const { rows } = await sql<{ t: string }>`select table_name as t from information_schema.tables where table_schema = current_schema() and table_name not like 'kysely_%' order by 1`.execute(db.handle.db)
  return rows.map((r) => r.t)
}

it('migrates up, all the way down, and up again', async () => {
  const count = Object.keys(migrations).length
  expect(await migrateToLatest(db.handle.db)).toHaveLength(count)
  const full = await tables()
  expect(full).toEqual(expect.arrayContaining(['api_clients', 'signing_keys', 'subscriptions']))
  for (let i = 0; i < count; i++) await migrateDown(db.handle.db)
  expect(await tables()).toEqual([])
  expect(await migrateToLatest(db.handle.db)).toHaveLength(count)
  expect(await tables()).toEqual(full)
  expect(await migrateToLatest(db.handle.db)).toEqual([])
})
