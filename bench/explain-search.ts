import { sql, type CompiledQuery } from 'kysely'
import { pathToFileURL } from 'node:url'
import { openDatabase, type Db } from '../src/platform/db/database.js'
import { migrateToLatest } from '../src/platform/db/migrate.js'
import type { ListFilter, Sort, SortField } from '../src/search/model/parse.js'
import { trackingLookupQuery } from '../src/search/store/lookup.js'
import { countQuery, pageQuery } from '../src/search/store/search.js'
import { tallyCountQuery } from '../src/search/store/tallies.js'
import { recordQuery } from '../src/packages/store/read.js'

/**
 * Checks with EXPLAIN that every search query shape (each page query and its count) reads the
 * `packages` table (or, for totals the tallies hold, the tallies) through the index meant for it,
 * and never sequentially. The assertion is on
 * the plan nodes that read `packages` (and, where it matters, `contacts`), not on the plan text:
 * an index named anywhere else in the plan does not count.
 *
 * `npm run bench:explain` runs it against DATABASE_URL (PostgreSQL with seeded data:
 * `mailroom seed --packages 1000000`) on the largest subscription, and exits 1 when a plan misses.
 * test/search/explain.test.ts runs the same cases in the test suite.
 */

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Plan Rows'?: number
  Plans?: PlanNode[]
}

export interface ExplainCase {
  name: string
  query: CompiledQuery
  /** Per table, the indexes (or 'Seq Scan' where a small table may be scanned): every node reading it must use one. */
  expect: Partial<Record<'packages' | 'contacts' | 'package_tallies' | 'package_tally_deltas', string[]>>
}

export interface PlanCheck {
  name: string
  ok: boolean
  /** Per table read: how each node reads it ("Index Scan packages_created_idx", "Seq Scan"). */
  readers: Record<string, string[]>
  problems: string[]
  plan: unknown
}

const reversed = (v: string) => [...v].reverse().join('')

const walk = (node: PlanNode, visit: (n: PlanNode) => void): void => {
  visit(node)
  for (const child of node.Plans ?? []) walk(child, visit)
}

/** The indexes a node reading a table goes through: its own, or those of its bitmap subtree. */
function indexesOf(node: PlanNode): string[] {
  if (node['Node Type'] !== 'Bitmap Heap Scan') return node['Index Name'] ? [node['Index Name']] : []
  const out: string[] = []
  for (const child of node.Plans ?? []) walk(child, (n) => n['Index Name'] && out.push(n['Index Name']))
  return out
}

export async function explainCase(db: Db, c: ExplainCase): Promise<PlanCheck> {
  const { rows } = await db.executeQuery<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>({
    ...c.query,
    sql: `explain (format json) ${c.query.sql}`,
  })
  const raw = rows[0]!['QUERY PLAN']
  const root = (typeof raw === 'string' ? (JSON.parse(raw) as typeof raw) : raw)[0]!.Plan
  const readers: Record<string, string[]> = {}
  const problems: string[] = []
  walk(root, (n) => {
    const table = n['Relation Name']
    if (!table) return
    const used = indexesOf(n)
    ;(readers[table] ??= []).push(
      `${n['Node Type']}${used.length ? ` ${used.join('+')}` : ''} (est. ${n['Plan Rows']} rows)`,
    )
    const allowed = c.expect[table as keyof ExplainCase['expect']]
    if (!allowed) return
    // A bitmap scan may AND in any index leading with sub_id: one of the expected ones must be there.
    if (used.length === 0 ? !allowed.includes(n['Node Type']) : !used.some((index) => allowed.includes(index))) {
      problems.push(
        `${table} read by ${n['Node Type']}${used.length ? ` through ${used.join('+')}` : ''}, expected ${allowed.join(' or ')}`,
      )
    }
  })
  for (const table of Object.keys(c.expect)) if (!readers[table]) problems.push(`no node reads ${table}`)
  return { name: c.name, ok: problems.length === 0, readers, problems, plan: root }
}

/** Values to search for, drawn from the subscription's own data. */
async function samples(db: Db, subId: string) {
  const one = async <T>(q: ReturnType<typeof sql<T>>) => (await q.execute(db)).rows[0]
  const pkg = await one(
    sql<{
      package_id: string
      tracking_number: string
    }>`select package_id, tracking_number from packages where sub_id = ${subId} order by created_at desc limit 1 offset 7`,
  )
  const site = await one(
    sql<{
      site_id: string
    }>`select site_id from inbound_sites where sub_id = ${subId} and type = 'building' order by site_id limit 1`,
  )
  // The rarest receiver name (the seed names its first contact Ada Lovelace).
  const rare = await one(
    sql<{
      word: string
    }>`select lower(split_part(name, ' ', 2)) as word from contacts where sub_id = ${subId} and contact_type <> 'SENDER' order by (lower(split_part(name, ' ', 2)) = 'lovelace') desc, created_at limit 1`,
  )
  const field = await one(sql<{ name: string; value: string }>`
    select d.name, cf->>'value' as value from packages p cross join jsonb_array_elements(p.custom_fields) cf join custom_fields d on d.custom_field_id = cf->>'customFieldId'
     where p.sub_id = ${subId} and d.name = 'PO Number' limit 1`)
  const email = await one(
    sql<{
      email: string
    }>`select email from contacts where sub_id = ${subId} and email is not null order by created_at limit 1 offset 3`,
  )
  if (!pkg || !site || !rare) throw new Error('the subscription has no packages, sites or contacts: seed it first')
  return {
    pkg,
    siteId: site.site_id,
    rareName: rare.word,
    field,
    email: email?.email,
    bounds: await histogramBounds(db),
  }
}

/**
 * A value from the middle of the planner's histogram of each column a tracking-number or
 * package-id search matches (undefined before ANALYZE). A fragment of a bound is the worst case of
 * the LIKE estimate: it matches that bound, which the planner counts as a whole histogram bucket.
 */
async function histogramBounds(db: Db) {
  const bound = async (table: string, column: string) =>
    (
      await sql<{ b: string }>`
    select b from pg_stats s, unnest(s.histogram_bounds::text::text[]) with ordinality u(b, i)
     where s.tablename = ${table} and s.attname = ${column}
     order by abs(i - array_length(s.histogram_bounds::text::text[], 1) / 2) limit 1`.execute(db)
    ).rows[0]?.b
  return {
    trackingNumber: await bound('packages', 'tracking_number'),
    trackingNumberReversed: await bound('packages_tn_suffix_idx', 'reverse'),
    packageIdReversed: await bound('packages_id_suffix_idx', 'reverse'),
  }
}

/** Every query shape of GET /api/v1/packages and POST /api/v1/packages/search, page and count. */
export async function explainCases(db: Db, subId: string): Promise<ExplainCase[]> {
  const s = await samples(db, subId)
  const base: ListFilter = { secondTier: false, includeEmptyPackageLocation: false }
  const newest: Sort = { field: 'insertTimestamp', desc: true }
  const search = (field: string, value: string, position: 'contains' | 'starts' | 'ends' = 'contains'): ListFilter => ({
    ...base,
    search: { field: field as never, value, position },
  })
  const cases: ExplainCase[] = []
  // A page may also walk the sort order's index and filter, when the planner expects 25 matches
  // early on (a common value); the count has no order to walk, so it must use the search's index.
  const both = (
    name: string,
    filter: ListFilter,
    countIdx: string[],
    pageAlso: string[] = ['packages_created_idx'],
    contacts?: string[],
  ) => {
    cases.push({
      name: `${name}: page`,
      query: pageQuery(db, subId, filter, newest, 0, 25),
      expect: { packages: [...countIdx, ...pageAlso], ...(contacts ? { contacts } : {}) },
    })
    cases.push({
      name: `${name}: count`,
      query: countQuery(db, subId, filter).compile(),
      expect: { packages: countIdx, ...(contacts ? { contacts } : {}) },
    })
  }
  const tn = s.pkg.tracking_number
  both(
    'trackingNumber starts',
    search('trackingNumber', tn.slice(0, 10), 'starts'),
    ['packages_tn_prefix_idx', 'packages_active_tracking_uq', 'packages_tracking_idx'],
    [],
  )
  both('trackingNumber ends', search('trackingNumber', tn.slice(-6), 'ends'), ['packages_tn_suffix_idx'], [])
  both('trackingNumber contains', search('trackingNumber', tn.slice(3, 11)), ['packages_tn_trgm_idx'], [])
  // Concurrent lookups gathered into one statement: each value a range of the prefix / suffix index.
  cases.push({
    name: 'trackingNumber starts, gathered lookups',
    query: trackingLookupQuery(subId, 'starts', 25, [tn.slice(0, 10), tn.slice(0, 6)]).compile(db),
    expect: { packages: ['packages_tn_prefix_idx'] },
  })
  cases.push({
    name: 'trackingNumber ends, gathered lookups',
    query: trackingLookupQuery(subId, 'ends', 25, [tn.slice(-6), tn.slice(-4)]).compile(db),
    expect: { packages: ['packages_tn_suffix_idx'] },
  })
  const { bounds } = s
  if (bounds.trackingNumber)
    both(
      'trackingNumber starts (a histogram bound)',
      search('trackingNumber', bounds.trackingNumber.slice(0, 8), 'starts'),
      ['packages_tn_prefix_idx', 'packages_active_tracking_uq', 'packages_tracking_idx'],
      [],
    )
  if (bounds.trackingNumberReversed)
    both(
      'trackingNumber ends (a histogram bound)',
      search('trackingNumber', reversed(bounds.trackingNumberReversed.slice(0, 6)), 'ends'),
      ['packages_tn_suffix_idx'],
      [],
    )
  both('packageId exact', search('packageId', s.pkg.package_id), ['packages_pkey', 'packages_id_prefix_idx'], [])
  both(
    'packageId starts',
    search('packageId', s.pkg.package_id.slice(0, 20), 'starts'),
    ['packages_id_prefix_idx', 'packages_pkey'],
    [],
  )
  both('packageId ends', search('packageId', s.pkg.package_id.slice(-10), 'ends'), ['packages_id_suffix_idx'], [])
  if (bounds.packageIdReversed)
    both(
      'packageId ends (a histogram bound)',
      search('packageId', reversed(bounds.packageIdReversed.slice(0, 10)), 'ends'),
      ['packages_id_suffix_idx'],
      [],
    )
  both(
    'receiver.name contains (rare)',
    search('receiver.name', s.rareName),
    ['packages_receiver_idx', 'packages_receiver_count_idx'],
    [],
    ['contacts_name_trgm_idx'],
  )
  // A common first name: the page may walk the newest packages and look each receiver up by key.
  both(
    'receiver.name starts',
    search('receiver.name', 'ada', 'starts'),
    ['packages_receiver_idx', 'packages_receiver_count_idx'],
    ['packages_created_idx'],
    ['contacts_name_prefix_idx', 'contacts_name_trgm_idx', 'contacts_name_sort_idx', 'contacts_pkey'],
  )
  // Thousands of contacts are one scan; the four trigram indexes take over as the table grows.
  const secondTierContacts = [
    'contacts_name_trgm_idx',
    'contacts_email_trgm_idx',
    'contacts_personal_id_trgm_idx',
    'contacts_company_trgm_idx',
    'Seq Scan',
  ]
  if (s.email)
    both(
      'receiver.name second tier',
      { ...search('receiver.name', s.email.slice(0, 12)), secondTier: true },
      ['packages_receiver_idx', 'packages_receiver_count_idx', 'packages_custom_values_trgm_idx'],
      [],
      secondTierContacts,
    )
  both('comment contains', search('comment', 'refrigerate'), ['packages_comment_trgm_idx'])
  both('lockerBank contains', search('lockerBank', 'annex'), ['packages_locker_bank_trgm_idx'])
  both('packageLocation contains', search('packageLocation', 'bin 17'), ['packages_location_trgm_idx'])
  if (s.field)
    both(
      'customFields.<name> contains',
      search(`customFields.${s.field.name}`, s.field.value.slice(-6)),
      ['packages_custom_values_trgm_idx'],
      [],
    )
  both('carrier.name contains', search('carrier.name', 'purolator'), ['packages_carrier_idx'])
  both(
    'status + site listing',
    { ...base, statuses: ['READY_FOR_PICKUP', 'RECEIVED'], siteId: s.siteId },
    ['packages_site_status_count_idx', 'packages_site_status_idx'],
    ['packages_status_created_idx', 'packages_created_idx'],
  )
  both(
    'status listing',
    { ...base, statuses: ['DAMAGED'] },
    ['packages_status_count_idx', 'packages_status_created_idx', 'packages_status_id_idx'],
    [],
  )
  // Totals the tallies hold (migration 0010): a sum over tally rows by their key, never a count of packages.
  const tallies = {
    package_tallies: ['package_tallies_pk'],
    package_tally_deltas: ['package_tally_deltas_key_idx', 'Seq Scan'],
  }
  const tallied = (name: string, filter: ListFilter, more: ExplainCase['expect'] = {}) => {
    const query = tallyCountQuery(db, subId, filter)
    if (!query) throw new Error(`${name}: not a total the tallies hold`)
    cases.push({ name: `${name}: total from the tallies`, query: query.compile(db), expect: { ...tallies, ...more } })
  }
  tallied('receiver.name contains', search('receiver.name', 'son'), { contacts: ['contacts_name_trgm_idx'] })
  tallied(
    'sender.name starts, undelivered',
    { ...search('sender.name', 'acme', 'starts'), statuses: ['RECEIVED', 'READY_FOR_PICKUP'] },
    { contacts: ['contacts_name_prefix_idx', 'contacts_name_trgm_idx', 'Seq Scan'] },
  )
  tallied('status + site listing', { ...base, statuses: ['READY_FOR_PICKUP', 'RECEIVED'], siteId: s.siteId })
  tallied('status listing', { ...base, statuses: ['DAMAGED'] })
  tallied('everything (custom search {})', base)
  const day = 86_400_000
  const now = Date.now()
  both(
    'date range',
    { ...base, startDate: new Date(now - 3 * day), endDate: new Date(now - 2 * day) },
    ['packages_created_idx', 'packages_updated_idx'],
    [],
  )
  cases.push({
    name: 'newest page (custom search {})',
    query: pageQuery(db, subId, base, newest, 0, 25),
    expect: { packages: ['packages_created_idx'] },
  })
  const sorts: Array<[SortField, string[]]> = [
    ['insertTimestamp', ['packages_created_idx']],
    ['updateTimestamp', ['packages_updated_idx']],
    ['trackingNumber', ['packages_tracking_idx']],
    ['currentStatus', ['packages_status_id_idx', 'packages_status_created_idx']],
    ['deliveryTime', ['packages_delivery_idx', 'packages_undelivered_idx']],
    ['receiver.name', ['packages_receiver_idx', 'packages_receiver_count_idx', 'packages_no_receiver_idx']],
  ]
  for (const [field, idx] of sorts) {
    for (const desc of [false, true]) {
      cases.push({
        name: `sort ${field},${desc ? 'DESC' : 'ASC'}`,
        query: pageQuery(db, subId, base, { field, desc }, 0, 25),
        expect: { packages: idx, ...(field === 'receiver.name' ? { contacts: ['contacts_name_sort_idx'] } : {}) },
      })
    }
  }
  // The record read of Get and of get by tracking number: one package, and concurrent requests'
  // gathered into one query. Any index that takes the equality is right (the prefix indexes do).
  const some = (
    await sql<{
      package_id: string
      tracking_number: string
    }>`select package_id, tracking_number from packages where sub_id = ${subId} limit 8`.execute(db)
  ).rows
  for (const n of [1, 8]) {
    const pick = some.slice(0, n)
    cases.push({
      name: `record by package id ×${n}`,
      query: recordQuery(subId, { packageIds: pick.map((p) => p.package_id) }).compile(db),
      expect: { packages: ['packages_pkey', 'packages_id_prefix_idx'], contacts: ['contacts_pkey'] },
    })
    cases.push({
      name: `record by tracking number ×${n}`,
      query: recordQuery(subId, { trackingNumbers: pick.map((p) => p.tracking_number) }).compile(db),
      expect: {
        packages: ['packages_tracking_idx', 'packages_active_tracking_uq', 'packages_tn_prefix_idx'],
        contacts: ['contacts_pkey'],
      },
    })
  }
  return cases
}

/** The subscription with the most packages. */
export async function largestSubscription(db: Db): Promise<string | undefined> {
  const top = await sql<{
    sub_id: string
  }>`select sub_id from packages group by sub_id order by count(*) desc limit 1`.execute(db)
  return top.rows[0]?.sub_id
}

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL
  if (!url) {
    console.error('explain-search needs DATABASE_URL (PostgreSQL with seeded data: mailroom seed --packages 1000000)')
    process.exit(2)
  }
  const handle = await openDatabase({ kind: 'postgres', url, poolSize: 2 })
  await migrateToLatest(handle.db)
  const subId = await largestSubscription(handle.db)
  if (!subId) {
    console.error('no packages: seed first')
    process.exit(2)
  }
  let failed = 0
  for (const c of await explainCases(handle.db, subId)) {
    const r = await explainCase(handle.db, c)
    if (!r.ok) failed++
    const how = Object.entries(r.readers)
      .map(([t, ways]) => `${t}: ${ways.join(', ')}`)
      .join('; ')
    console.log(`${r.ok ? 'ok  ' : 'MISS'} ${r.name} — ${how}`)
    if (!r.ok) console.log(`     ${r.problems.join('\n     ')}`)
  }
  await handle.close()
  process.exit(failed ? 1 : 0)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
