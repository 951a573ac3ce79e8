import { beforeAll, expect, it } from 'vitest'
import { explainCase, explainCases } from '../../bench/explain-search.js'
import { seedSubscription } from '../../src/app/seed/seed.js'
import { useTestApp } from '../support/use-test-app.js'

/**
 * The EXPLAIN checks of bench/explain-search.ts, in the suite. On PostgreSQL (TEST_DATABASE_URL)
 * the table is big enough for the planner to prefer indexes, and every query shape must read
 * `packages` (or the tallies) through its own index. PGlite's planner sees a small table and may
 * rightly scan it, so there the same queries must only plan: valid SQL, reading the tables expected.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL)
const t = useTestApp()
let subId: string

beforeAll(async () => {
  // Another subscription first, so sub_id is not the whole table.
  await seedSubscription(t.ctx.db, t.ctx.clients, {
    subscription: 'neighbour',
    packages: onPostgres ? 20_000 : 200,
    contacts: 500,
    seed: 7,
  })
  subId = (
    await seedSubscription(t.ctx.db, t.ctx.clients, {
      subscription: 'explained',
      packages: onPostgres ? 100_000 : 1_500,
      contacts: 3000,
    })
  ).subId
}, 600_000)

it(
  onPostgres ? 'reads packages through the index of each query shape (PostgreSQL)' : 'plans every query shape (PGlite)',
  async () => {
    const cases = await explainCases(t.ctx.db, subId)
    expect(cases.length).toBeGreaterThan(40)
    const misses: string[] = []
    for (const c of cases) {
      const r = await explainCase(t.ctx.db, c)
      for (const table of Object.keys(c.expect)) expect(r.readers[table], `${c.name} reads ${table}`).toBeDefined()
      if (onPostgres && !r.ok) misses.push(`${c.name}: ${r.problems.join('; ')} (${JSON.stringify(r.readers)})`)
    }
    expect(misses).toEqual([])
  },
  120_000,
)
