import { sql } from 'kysely'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { inTransaction } from '../../src/platform/db/transaction.js'
import { claimStatement } from '../../src/webhooks/store/deliveries-claim.js'
import { createTestDatabase } from '../support/test-db.js'

// The claim's plan when the statistics were taken while nothing was pending (a quiet night) and a
// backlog has built up since (a receiver back from an outage): every read of webhook_deliveries
// must be a lookup (an index condition), never a whole index or table per claim or per candidate.
let db: Awaited<ReturnType<typeof createTestDatabase>>
beforeAll(async () => {
  db = await createTestDatabase()
  const k = db.handle.db
  const now = new Date()
  await k.insertInto('subscriptions').values({ sub_id: 'sub_plan', name: 'sub_plan' }).execute()
  await k
    .insertInto('webhook_configs')
    .values({
      config_id: 'whk_plan',
      sub_id: 'sub_plan',
      variant: 'tracking',
      name: 'plan',
      url: 'https://example.com/hook',
      events: ['Received'],
      timeout_seconds: 5,
      status: 'active',
      auth_type: 'none',
      auth_public: '{}',
      signing_secret_sealed: 'x',
      created_at: now,
      updated_at: now,
    })
    .execute()
  await sql`
    insert into webhook_deliveries (delivery_id, sub_id, config_id, event_id, event_name, package_id, sequence, occurred_at, status, attempts,
                                    next_attempt_at, created_at, updated_at)
    select 'dlv_plan_' || g, 'sub_plan', 'whk_plan', 'evt_plan_' || g, 'Received', 'pkg_plan_' || (g % 1500), g / 1500 + 1, ${now}::timestamptz,
           'delivered', 1, ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
    from generate_series(1, 3000) g`.execute(k)
  await sql`analyze webhook_deliveries`.execute(k)
  await sql`update webhook_deliveries set status = 'pending'`.execute(k)
})
afterAll(() => db.drop())

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Index Cond'?: string
  Plans?: PlanNode[]
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)]

it.each(['force_custom_plan', 'force_generic_plan'])(
  'looks every delivery up by an index condition under stale statistics (%s)',
  async (mode) => {
    const plan = await inTransaction(db.handle.db, async (trx) => {
      await sql`select set_config('plan_cache_mode', ${mode}, true)`.execute(trx)
      const stmt = claimStatement({
        now: new Date(Date.now() + 1000),
        limit: 100,
        workerId: 'w',
        leaseMarginSeconds: 10,
        windowEnd: new Date(),
      })
      const { rows } = await sql<{
        'QUERY PLAN': Array<{ Plan: PlanNode }> | string
      }>`explain (format json) ${stmt}`.execute(trx)
      const raw = rows[0]!['QUERY PLAN']
      return (typeof raw === 'string' ? JSON.parse(raw) : raw)[0].Plan as PlanNode
    })
    const reads = nodes(plan).filter(
      (n) => n['Relation Name'] === 'webhook_deliveries' && n['Node Type'] !== 'ModifyTable',
    )
    expect(reads.map((n) => [n['Node Type'], n['Index Name'], n['Index Cond'] !== undefined])).toEqual(
      expect.arrayContaining([['Index Scan', 'webhook_deliveries_claim_idx', true]]),
    )
    for (const n of reads) {
      // A bitmap heap scan is a lookup too when the bitmap comes from an index condition (the claim's
      // update reads its rows by primary key from an array).
      const lookup =
        n['Node Type'] === 'Bitmap Heap Scan' ? (nodes(n).find((b) => b['Node Type'] === 'Bitmap Index Scan') ?? n) : n
      expect(lookup['Node Type'], JSON.stringify(n)).toMatch(/^(Index (Only )?Scan|Bitmap Index Scan)$/)
      expect(lookup['Index Cond'], JSON.stringify(n)).toBeDefined()
    }
  },
)
