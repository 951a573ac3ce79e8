import pg from 'pg'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { openDatabase } from '../src/platform/db/database.js'
import { asTrackingLookup, trackingLookupQuery } from '../src/search/store/lookup.js'
import { matchCountQuery, pageQuery } from '../src/search/store/search.js'
import type { ListFilter } from '../src/search/model/parse.js'
import { load, NAME_TERMS, printTable, ROOT, startProcess, type Figure } from './lib.js'

/**
 * Search at scale (issue 5), `npm run bench:search`: seeds 100,000 and 1,000,000 packages into
 * fresh PostgreSQL databases with `mailroom seed` (timed: the seed figure), then for each search
 * shape measures over HTTP
 *   - latency: p95 with LATENCY_CONNECTIONS (2) concurrent clients, the time one search takes;
 *   - throughput: req/s with LOAD_CONNECTIONS (20), the capacity (its p95 is mostly queueing);
 * runs the same SQL straight through `pg` (the database's share), streams a CSV export of every row
 * (rows/s, and the service's memory growth meanwhile), and prints each issue target beside the
 * figure, including the p95 ratio of 1M to 100k against 1.5.
 *
 * Needs BENCH_PG_URL or DATABASE_URL (an admin URL). SEARCH_BENCH_SCALES=100000,1000000 by default;
 * BENCH_SECONDS (8) per run. On a small shared machine the load generator, the service and
 * PostgreSQL share the cores: the figures are then a floor.
 */
const admin = process.env.BENCH_PG_URL ?? process.env.DATABASE_URL
if (!admin) {
  console.error('search bench needs PostgreSQL: set DATABASE_URL or BENCH_PG_URL')
  process.exit(2)
}
const scales = (process.env.SEARCH_BENCH_SCALES ?? '100000,1000000').split(',').map(Number)
const seconds = Number(process.env.BENCH_SECONDS ?? 8)
const latencyConnections = Number(process.env.LATENCY_CONNECTIONS ?? 2)
const loadConnections = Number(process.env.LOAD_CONNECTIONS ?? 20)

type Scenario =
  | 'trackingNumber starts'
  | 'trackingNumber ends'
  | 'recipient name contains'
  | 'status + site listing'
  | 'custom search 25 rows'
const SCENARIOS: Scenario[] = [
  'trackingNumber starts',
  'trackingNumber ends',
  'recipient name contains',
  'status + site listing',
  'custom search 25 rows',
]
/** The issue's targets: p95 in ms, and req/s where it names one. */
const TARGET: Record<Scenario, { p95: number; reqPerSec?: number }> = {
  'trackingNumber starts': { p95: 10, reqPerSec: 2000 },
  'trackingNumber ends': { p95: 10, reqPerSec: 2000 },
  'recipient name contains': { p95: 50 },
  'status + site listing': { p95: 20 },
  'custom search 25 rows': { p95: 20 },
}

/** The service's SQL for a filter (the page or lookup, then the total when the page is full: from the tallies where they hold it), straight through pg. */
async function sqlCeiling(
  url: string,
  subId: string,
  filters: ListFilter[],
  runs = 400,
  concurrency = latencyConnections,
): Promise<{ reqPerSec: number; p95: number }> {
  const handle = await openDatabase({ kind: 'postgres', url, poolSize: 2 })
  const newest = { field: 'insertTimestamp', desc: true } as const
  const compiled = filters.map((f) => {
    // A clerk's tracking-number lookup runs as the lookup statement (one value here; the service gathers concurrent ones).
    const lookup = asTrackingLookup(f, newest, 0, 25)
    const page = lookup
      ? trackingLookupQuery(subId, lookup.position, 25, [lookup.value]).compile(handle.db)
      : pageQuery(handle.db, subId, f, newest, 0, 25)
    return { page, count: matchCountQuery(handle.db, subId, f) }
  })
  await handle.close()
  const pool = new pg.Pool({ connectionString: url, max: concurrency })
  const times: number[] = []
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < runs) {
        const q = compiled[next++ % compiled.length]!
        const t = performance.now()
        const page = await pool.query(q.page.sql, q.page.parameters as unknown[])
        if (page.rowCount === 25) await pool.query(q.count.sql, q.count.parameters as unknown[])
        times.push(performance.now() - t)
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  await pool.end()
  times.sort((a, b) => a - b)
  return {
    reqPerSec: Math.round(times.length / elapsed),
    p95: Number(times[Math.floor(times.length * 0.95)]!.toFixed(1)),
  }
}

interface ScaleResult {
  seedSeconds: number
  latency: Record<Scenario, Figure>
  throughput: Partial<Record<Scenario, Figure>>
  sql: Record<Scenario, { reqPerSec: number; p95: number }>
  csv: { rows: number; seconds: number; rowsPerSec: number; rssGrowthMb: number; status: number }
}
const results: Record<number, ScaleResult> = {}

for (const scale of scales) {
  const dbName = `mailroom_bench_${scale}`
  const a = new pg.Client({ connectionString: admin })
  await a.connect()
  await a.query(`drop database if exists ${dbName} with (force)`)
  await a.query(`create database ${dbName}`)
  await a.end()
  const url = new URL(admin)
  url.pathname = `/${dbName}`
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-search-bench-'))
  const env = {
    ...process.env,
    DATABASE_URL: url.toString(),
    MAILROOM_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    MAILROOM_FROM_SOURCE: '1',
  }
  console.log(`seeding ${scale} packages…`)
  const seedStart = Date.now()
  const seeded = spawnSync(
    process.execPath,
    ['bin/mailroom.js', 'seed', '--packages', String(scale), '--contacts', '5000', '--json'],
    { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 1 << 24 },
  )
  if (seeded.status !== 0) throw new Error(seeded.stderr)
  const seedSeconds = (Date.now() - seedStart) / 1000
  console.log(`seeded in ${seedSeconds.toFixed(1)} s`)
  const { subId, clientId, clientSecret } = JSON.parse(seeded.stdout) as {
    subId: string
    clientId: string
    clientSecret: string
  }
  const port = 19080 + Math.floor(Math.random() * 500)
  const service = await startProcess(
    ['bin/mailroom.js', 'serve'],
    {
      ...env,
      PORT: String(port),
      MAILROOM_DEMO: 'false',
      RATE_LIMIT_MAX: '1000000000',
      TENANT_MAX_SEARCHES: '1000',
      TENANT_MAX_EXPORTS: '1000',
    },
    (p) => `http://127.0.0.1:${p}/readyz`,
    port,
  )
  const base = `http://127.0.0.1:${port}`
  try {
    const tok = (await (
      await fetch(`${base}/auth/api/v1/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
      })
    ).json()) as { access_token: string }
    const auth = { authorization: `Bearer ${tok.access_token}` }
    const json = { ...auth, 'content-type': 'application/json' }
    const c = new pg.Client({ connectionString: url.toString() })
    await c.connect()
    const numbers = (
      await c.query<{ t: string }>(
        `select tracking_number as t from packages where sub_id = $1 order by random() limit 2000`,
        [subId],
      )
    ).rows.map((r) => r.t)
    const site = (
      await c.query<{ s: string }>(
        `select site_id as s from inbound_sites where sub_id = $1 and type = 'building' order by site_id limit 1`,
        [subId],
      )
    ).rows[0]!.s
    await c.end()
    let i = 0
    const nextTn = () => numbers[i++ % numbers.length]!
    let k = 0
    const nextName = () => NAME_TERMS[k++ % NAME_TERMS.length]!
    const plain: ListFilter = { secondTier: false, includeEmptyPackageLocation: false }
    const requests: Record<Scenario, { opts: Parameters<typeof load>[1]; sql: ListFilter[] }> = {
      'trackingNumber starts': {
        opts: {
          url: `${base}/`,
          headers: auth,
          setupRequest: (req) => ({
            ...req,
            path: `/api/v1/packages?search=trackingNumber:${nextTn().slice(0, 10)}&searchPosition=starts`,
          }),
        },
        sql: numbers
          .slice(0, 50)
          .map((n) => ({ ...plain, search: { field: 'trackingNumber', value: n.slice(0, 10), position: 'starts' } })),
      },
      'trackingNumber ends': {
        opts: {
          url: `${base}/`,
          headers: auth,
          setupRequest: (req) => ({
            ...req,
            path: `/api/v1/packages?search=trackingNumber:${nextTn().slice(-6)}&searchPosition=ends`,
          }),
        },
        sql: numbers
          .slice(0, 50)
          .map((n) => ({ ...plain, search: { field: 'trackingNumber', value: n.slice(-6), position: 'ends' } })),
      },
      'recipient name contains': {
        opts: {
          url: `${base}/`,
          headers: auth,
          setupRequest: (req) => ({ ...req, path: `/api/v1/packages?search=receiver.name:${nextName()}` }),
        },
        sql: NAME_TERMS.map((value) => ({ ...plain, search: { field: 'receiver.name', value, position: 'contains' } })),
      },
      // A listing has no search term: the custom search with filters and {} (full records).
      'status + site listing': {
        opts: {
          url: `${base}/api/v1/packages/search?status=READY_FOR_PICKUP,RECEIVED&inboundSiteId=${site}`,
          method: 'POST',
          headers: json,
          body: '{}',
        },
        sql: [{ ...plain, statuses: ['READY_FOR_PICKUP', 'RECEIVED'], siteId: site }],
      },
      'custom search 25 rows': {
        opts: {
          url: `${base}/api/v1/packages/search?status=READY_FOR_PICKUP`,
          method: 'POST',
          headers: json,
          body: JSON.stringify({
            trackingNumber: 'Tracking',
            'receiver.name': 'Recipient',
            currentStatus: 'Status',
            'currentLocation.locationHierarchy': 'Where',
          }),
        },
        sql: [{ ...plain, statuses: ['READY_FOR_PICKUP'] }],
      },
    }
    const latency = {} as ScaleResult['latency']
    const throughput: ScaleResult['throughput'] = {}
    const sqlFigures = {} as ScaleResult['sql']
    for (const name of SCENARIOS) {
      const { opts, sql } = requests[name]
      latency[name] = await load(`${name} @${scale}, ${latencyConnections} conn.`, {
        ...opts,
        durationSeconds: seconds,
        connections: latencyConnections,
      })
      if (TARGET[name].reqPerSec)
        throughput[name] = await load(`${name} @${scale}, ${loadConnections} conn.`, {
          ...opts,
          durationSeconds: seconds,
          connections: loadConnections,
        })
      sqlFigures[name] = await sqlCeiling(url.toString(), subId, sql)
    }

    // CSV export of every row: rows/s and the service's memory growth while it streams.
    const rss = async () =>
      Number(
        /mailroom_process_resident_memory_bytes (\d+)/.exec(await (await fetch(`${base}/metrics`)).text())?.[1] ?? 0,
      )
    const before = await rss()
    let peak = before
    const sampler = setInterval(
      () =>
        void rss().then(
          (v) => (peak = Math.max(peak, v)),
          () => undefined,
        ),
      250,
    )
    const t0 = performance.now()
    const res = await fetch(`${base}/api/v1/packages/search`, {
      method: 'POST',
      headers: { ...json, accept: 'text/csv' },
      body: JSON.stringify({
        trackingNumber: 'Tracking',
        'receiver.name': 'Recipient',
        currentStatus: 'Status',
        insertTimestamp: 'Received',
      }),
    })
    let lines = 0
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
      for (const b of chunk) if (b === 10) lines++
    const secs = (performance.now() - t0) / 1000
    clearInterval(sampler)
    peak = Math.max(peak, await rss())
    const csv = {
      rows: lines - 1,
      seconds: Number(secs.toFixed(1)),
      rowsPerSec: Math.round((lines - 1) / secs),
      rssGrowthMb: Math.round((peak - before) / 1048576),
      status: res.status,
    }

    const figures: Figure[] = [
      {
        scenario: `seed ${scale} packages (mailroom seed)`,
        reqPerSec: Math.round(scale / seedSeconds),
        p50: 0,
        p99: 0,
        errors: 0,
        non2xx: 0,
        note: `${seedSeconds.toFixed(1)} s; packages/s`,
      },
    ]
    for (const name of SCENARIOS) {
      figures.push({
        ...latency[name],
        note: `SQL via pg: p95 ${sqlFigures[name].p95} ms, ${sqlFigures[name].reqPerSec}/s`,
      })
      if (throughput[name]) figures.push(throughput[name])
    }
    figures.push({
      scenario: `CSV export @${scale}`,
      reqPerSec: csv.rowsPerSec,
      p50: 0,
      p99: 0,
      errors: 0,
      non2xx: csv.status === 200 ? 0 : 1,
      note: `rows/s; ${csv.rows} rows in ${csv.seconds} s; RSS growth ${csv.rssGrowthMb} MB`,
    })
    printTable(figures)
    results[scale] = { seedSeconds, latency, throughput, sql: sqlFigures, csv }
  } finally {
    await service.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

// The issue's figures, each beside its target.
const small = Math.min(...scales)
const large = Math.max(...scales)
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED')
const rows: Array<Record<string, string | number>> = []
const big = results[large]!
const base = results[small]!
rows.push({
  figure: `seed ${large} packages`,
  value: `${big.seedSeconds.toFixed(1)} s`,
  target: '< 120 s',
  verdict: verdict(big.seedSeconds < 120),
})
for (const name of SCENARIOS) {
  const p95 = big.latency[name].p95 ?? 0
  rows.push({
    figure: `${name} p95 @${large}`,
    value: `${p95} ms`,
    target: `≤ ${TARGET[name].p95} ms`,
    verdict: verdict(p95 <= TARGET[name].p95),
  })
  const rps = TARGET[name].reqPerSec
  if (rps) {
    const got = big.throughput[name]?.reqPerSec ?? 0
    rows.push({ figure: `${name} req/s @${large}`, value: got, target: `≥ ${rps}`, verdict: verdict(got >= rps) })
  }
  if (small !== large) {
    const ratio = p95 / Math.max(base.latency[name].p95 ?? 0, 0.1)
    rows.push({
      figure: `${name} p95 ${large}/${small}`,
      value: `${ratio.toFixed(2)} (${p95} / ${base.latency[name].p95} ms)`,
      target: '≤ 1.5',
      verdict: verdict(ratio <= 1.5),
    })
  }
}
rows.push({
  figure: `CSV export rows/s @${large}`,
  value: big.csv.rowsPerSec,
  target: '≥ 50000',
  verdict: verdict(big.csv.rowsPerSec >= 50_000),
})
rows.push({
  figure: `CSV export memory growth @${large}`,
  value: `${big.csv.rssGrowthMb} MB`,
  target: '< 100 MB',
  verdict: verdict(big.csv.rssGrowthMb < 100),
})
console.table(rows)
console.log(JSON.stringify({ results, summary: rows }))
