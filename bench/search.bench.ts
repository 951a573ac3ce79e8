import pg from 'pg'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { openDatabase } from '../src/db/database.js'
import { pageQuery } from '../src/search/search.repo.js'
import type { ListFilter } from '../src/search/search.parse.js'
import { load, printTable, ROOT, startProcess, type Figure } from './lib.js'

/**
 * Search at scale (issue 5): seeds 100,000 and 1,000,000 packages into fresh PostgreSQL databases,
 * then loads each search shape over HTTP and runs the same SQL straight through `pg` (the database
 * ceiling), and streams a CSV export of every row. Needs BENCH_PG_URL or DATABASE_URL (an admin URL).
 * SEARCH_BENCH_SCALES=100000,1000000 by default.
 */
const admin = process.env.BENCH_PG_URL ?? process.env.DATABASE_URL
if (!admin) {
  console.error('search bench needs PostgreSQL: set DATABASE_URL or BENCH_PG_URL')
  process.exit(2)
}
const scales = (process.env.SEARCH_BENCH_SCALES ?? '100000,1000000').split(',').map(Number)
const seconds = Number(process.env.BENCH_SECONDS ?? 8)

async function sqlCeiling(url: string, subId: string, filter: ListFilter, runs = 400, concurrency = 10): Promise<{ reqPerSec: number; p95: number }> {
  const handle = await openDatabase({ kind: 'postgres', url, poolSize: 2 })
  const compiled = pageQuery(handle.db, subId, filter, { field: 'insertTimestamp', desc: true }, 0, 25)
  await handle.close()
  const pool = new pg.Pool({ connectionString: url, max: concurrency })
  const times: number[] = []
  const started = performance.now()
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < runs) {
      const t = performance.now()
      await pool.query(compiled.sql, compiled.parameters as unknown[])
      times.push(performance.now() - t)
    }
  }))
  const elapsed = (performance.now() - started) / 1000
  await pool.end()
  times.sort((a, b) => a - b)
  return { reqPerSec: Math.round(times.length / elapsed), p95: Number(times[Math.floor(times.length * 0.95)]!.toFixed(1)) }
}

const report: Record<string, Figure[]> = {}
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
  const env = { ...process.env, DATABASE_URL: url.toString(), MAILROOM_DATA_DIR: dataDir, LOG_LEVEL: 'warn', MAILROOM_FROM_SOURCE: '1' }
  const seedStart = Date.now()
  const seeded = spawnSync(process.execPath, ['bin/mailroom.js', 'seed', '--packages', String(scale), '--contacts', '5000', '--json'], { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 1 << 24 })
  if (seeded.status !== 0) throw new Error(seeded.stderr)
  const seedSeconds = (Date.now() - seedStart) / 1000
  const { subId, clientId, clientSecret } = JSON.parse(seeded.stdout) as { subId: string; clientId: string; clientSecret: string }
  const port = 19080 + Math.floor(Math.random() * 500)
  const ceiling = await startProcess(['--import', 'tsx', 'bench/ceiling.ts'], {})
  const service = await startProcess(['bin/mailroom.js', 'serve'], { ...env, PORT: String(port), MAILROOM_DEMO: 'false' } as Record<string, string>, (p) => `http://127.0.0.1:${p}/readyz`, port)
  const base = `http://127.0.0.1:${port}`
  try {
    const tok = (await (await fetch(`${base}/auth/api/v1/token`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` } })).json()) as { access_token: string }
    const auth = { authorization: `Bearer ${tok.access_token}` }
    const c = new pg.Client({ connectionString: url.toString() })
    await c.connect()
    const numbers = (await c.query<{ t: string }>(`select tracking_number as t from packages where sub_id = $1 order by random() limit 2000`, [subId])).rows.map((r) => r.t)
    const site = (await c.query<{ s: string }>(`select site_id as s from inbound_sites where sub_id = $1 and type = 'building' limit 1`, [subId])).rows[0]!.s
    await c.end()
    let i = 0
    const nextTn = () => numbers[i++ % numbers.length]!
    const ceil = await load('ceiling: bare Fastify GET', { url: `http://127.0.0.1:${ceiling.port}/`, durationSeconds: seconds })
    const figures: Figure[] = [ceil, { scenario: `seed ${scale} packages (PostgreSQL)`, reqPerSec: Math.round(scale / seedSeconds), p50: 0, p99: 0, errors: 0, non2xx: 0, note: `${seedSeconds.toFixed(1)} s, packages/s` }]
    const scenarios: Array<[string, string, ListFilter]> = [
      ['trackingNumber starts', '', { secondTier: false, includeEmptyPackageLocation: false, search: { field: 'trackingNumber', value: numbers[0]!.slice(0, 10), position: 'starts' } }],
      ['trackingNumber ends', '', { secondTier: false, includeEmptyPackageLocation: false, search: { field: 'trackingNumber', value: numbers[0]!.slice(-6), position: 'ends' } }],
      ['recipient name contains', '', { secondTier: false, includeEmptyPackageLocation: false, search: { field: 'receiver.name', value: 'lovelace', position: 'contains' } }],
      ['status + site listing', '', { secondTier: false, includeEmptyPackageLocation: false, statuses: ['READY_FOR_PICKUP', 'RECEIVED'], siteId: site }],
    ]
    const urls: Record<string, (req: { path?: string }) => { path: string }> = {
      'trackingNumber starts': (req) => ({ ...req, path: `/api/v1/packages?search=trackingNumber:${nextTn().slice(0, 10)}&searchPosition=starts` }),
      'trackingNumber ends': (req) => ({ ...req, path: `/api/v1/packages?search=trackingNumber:${nextTn().slice(-6)}&searchPosition=ends` }),
      'recipient name contains': (req) => ({ ...req, path: '/api/v1/packages?search=receiver.name:lovelace' }),
    }
    // A listing has no search term: it is the custom search with filters and {} (full records).
    const listing = { url: `${base}/api/v1/packages/search?status=READY_FOR_PICKUP,RECEIVED&inboundSiteId=${site}`, method: 'POST' as const, headers: { ...auth, 'content-type': 'application/json' }, body: '{}' }
    for (const [name, , filter] of scenarios) {
      const opts = urls[name] ? { url: `${base}/`, headers: auth, setupRequest: urls[name] as never } : listing
      const f = await load(`${name} @${scale}`, { ...opts, durationSeconds: seconds, connections: 20 })
      const s = await sqlCeiling(url.toString(), subId, filter)
      figures.push({ ...f, ceiling: ceil.reqPerSec, note: `same SQL via pg: ${s.reqPerSec}/s p95 ${s.p95} ms` })
    }
    figures.push({ ...(await load(`custom search 25 rows @${scale}`, { url: `${base}/api/v1/packages/search?status=READY_FOR_PICKUP`, method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ trackingNumber: 'Tracking', 'receiver.name': 'Recipient', currentStatus: 'Status', 'currentLocation.locationHierarchy': 'Where' }), durationSeconds: seconds, connections: 20 })), ceiling: ceil.reqPerSec })

    // CSV export of every row: rows/s and the service's memory growth while it streams.
    const rss = async () => Number(/mailroom_process_resident_memory_bytes (\d+)/.exec(await (await fetch(`${base}/metrics`)).text())?.[1] ?? 0)
    const before = await rss()
    let peak = before
    const sampler = setInterval(async () => (peak = Math.max(peak, await rss())), 250)
    const t0 = performance.now()
    const res = await fetch(`${base}/api/v1/packages/search`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'text/csv' }, body: JSON.stringify({ trackingNumber: 'Tracking', 'receiver.name': 'Recipient', currentStatus: 'Status', insertTimestamp: 'Received' }) })
    let lines = 0
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) for (const b of chunk) if (b === 10) lines++
    const secs = (performance.now() - t0) / 1000
    clearInterval(sampler)
    figures.push({ scenario: `CSV export @${scale}`, reqPerSec: Math.round((lines - 1) / secs), p50: 0, p99: 0, errors: 0, non2xx: res.status === 200 ? 0 : 1, note: `rows/s; ${lines - 1} rows in ${secs.toFixed(1)} s; RSS growth ${((peak - before) / 1048576).toFixed(0)} MB` })
    printTable(figures)
    report[String(scale)] = figures
  } finally {
    await service.stop()
    await ceiling.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
console.log(JSON.stringify(report))
