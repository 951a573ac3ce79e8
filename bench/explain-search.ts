import { sql } from 'kysely'
import { openDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import type { ListFilter, Sort } from '../src/search/search.parse.js'
import { pageQuery } from '../src/search/search.repo.js'

/**
 * Checks with EXPLAIN that every search query shape uses the index meant for it, on the largest
 * subscription of the database at DATABASE_URL (seed one first: `mailroom seed --packages 1000000`).
 * Exits 1 when a plan misses its index. Run by `npm run bench` on PostgreSQL, or alone.
 */
const url = process.env.DATABASE_URL
if (!url) {
  console.error('explain-search needs DATABASE_URL (PostgreSQL with seeded data)')
  process.exit(2)
}
const handle = await openDatabase({ kind: 'postgres', url, poolSize: 2 })
await migrateToLatest(handle.db)
const db = handle.db
const top = await sql<{ sub_id: string; n: number }>`select sub_id, count(*)::int as n from packages group by sub_id order by 2 desc limit 1`.execute(db)
const subId = top.rows[0]?.sub_id
if (!subId) {
  console.error('no packages: seed first')
  process.exit(2)
}
const site = await sql<{ site_id: string }>`select site_id from inbound_sites where sub_id = ${subId} and type = 'building' limit 1`.execute(db)
const sample = await sql<{ tracking_number: string }>`select tracking_number from packages where sub_id = ${subId} limit 1`.execute(db)
const tn = sample.rows[0]!.tracking_number
const newest: Sort = { field: 'insertTimestamp', desc: true }
const base: ListFilter = { secondTier: false, includeEmptyPackageLocation: false }

const cases: Array<{ name: string; filter: ListFilter; sort?: Sort; expect: RegExp }> = [
  { name: 'trackingNumber starts', filter: { ...base, search: { field: 'trackingNumber', value: tn.slice(0, 8), position: 'starts' } }, expect: /packages_tn_prefix_idx/ },
  { name: 'trackingNumber ends', filter: { ...base, search: { field: 'trackingNumber', value: tn.slice(-6), position: 'ends' } }, expect: /packages_tn_suffix_idx/ },
  { name: 'trackingNumber contains', filter: { ...base, search: { field: 'trackingNumber', value: tn.slice(4, 12), position: 'contains' } }, expect: /packages_tn_trgm_idx/ },
  { name: 'receiver.name contains', filter: { ...base, search: { field: 'receiver.name', value: 'lovelace', position: 'contains' } }, expect: /contacts_name_trgm_idx|packages_receiver_idx/ },
  { name: 'status + site listing', filter: { ...base, statuses: ['READY_FOR_PICKUP', 'RECEIVED'], siteId: site.rows[0]!.site_id }, expect: /packages_site_status_idx|packages_status_created_idx/ },
  { name: 'status listing', filter: { ...base, statuses: ['READY_FOR_PICKUP'] }, expect: /packages_status_created_idx/ },
  { name: 'newest page (custom search)', filter: base, expect: /packages_created_idx/ },
]

let failed = 0
for (const c of cases) {
  const compiled = pageQuery(db, subId, c.filter, c.sort ?? newest, 0, 25).compile()
  const { rows } = await db.executeQuery<{ 'QUERY PLAN': string }>({ ...compiled, sql: `explain ${compiled.sql}` })
  const plan = rows.map((r) => r['QUERY PLAN']).join('\n')
  const ok = c.expect.test(plan)
  if (!ok) failed++
  console.log(`${ok ? 'ok  ' : 'MISS'} ${c.name}: ${(plan.match(/(Index|Bitmap Index) (Only )?Scan.*? on \S+/g) ?? ['sequential scan']).join(', ')}`)
  if (!ok) console.log(plan)
}
await handle.close()
process.exit(failed ? 1 : 0)
