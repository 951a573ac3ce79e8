import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely'
import type { Database } from '../src/platform/db/tables.js'
import pg from 'pg'
import { loadRecords, type RecordReferences } from '../src/packages/store/read.js'
import { findByTrackingNumbers } from '../src/packages/store/packages.js'
import { upsCheckDigit } from '../src/decode/index.js'
import { describeWrites, writeCounter } from './db-writes.js'
import { cpuWindow, postgresPids } from './cpu.js'
import { availableParallelism } from 'node:os'
import { benchMailroom, CONNECTIONS, load, poster, printTable, ROOT, startProcess, type Figure } from './lib.js'
import { receivingTargets, verdict } from './targets.js'

/**
 * `npm run bench`: every load scenario of the service, each figure beside its ceiling measured in
 * the same run, and beside the target its issue names.
 *
 *   1. HTTP (this file): a bare Fastify route (the HTTP ceiling) and the service, each in its own
 *      process, loaded by autocannon from this one: token issuance, the auth hook, add, get, get by
 *      tracking number, update, decode. The record read is also run as SQL straight through `pg`
 *      (the database ceiling).
 *   2. bench/decode.bench.ts (in-process decode), bench/decode-image.bench.ts (label photos),
 *      bench/webhooks.bench.ts (delivery throughput and latency), and on PostgreSQL
 *      bench/search.bench.ts (search at 100k and 1M packages; BENCH_SEARCH=0 skips it, it seeds
 *      1.1M packages), bench/cluster.bench.ts (two API processes against one; BENCH_ONLY=cluster
 *      runs it alone).
 *
 * With DATABASE_URL (an admin URL of a PostgreSQL server) each part runs on a database of its own,
 * created and dropped here; without it, on PGlite in a temporary directory. BENCH_ONLY=decode,get…
 * runs only the HTTP scenarios named (by their target key), with the ceilings they are read against.
 * On PostgreSQL the rows the database wrote during the read-only scenarios are counted and printed
 * (issue 26: zero). BENCH_VS=<commit> runs bench/versus.ts instead: this checkout beside that commit.
 */
// BENCH_VS=<commit>: this checkout beside an earlier commit, measured alternately (bench/versus.ts).
if (process.env.BENCH_VS) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/versus.ts'], {
    cwd: ROOT,
    env: process.env,
    stdio: 'inherit',
  })
  process.exit(r.status ?? 1)
}
const only = process.env.BENCH_ONLY?.split(',')
const wanted = (key: string) => !only || only.includes(key)
const admin = process.env.DATABASE_URL
// BENCH_ONLY=cluster: two API processes against one (bench/cluster.bench.ts starts its own processes and database).
if (only?.includes('cluster')) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/cluster.bench.ts'], {
    cwd: ROOT,
    env: process.env,
    stdio: 'inherit',
  })
  if (only.length === 1) process.exit(r.status ?? 1)
}
const engine = admin ? 'postgres' : 'pglite'
const SECRET = 'mailroom-bench-master-secret-0123456789abcdef'
const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-'))
const clientId = 'bench-client-0001'
const clientSecret = 'bench-secret-0123456789abcdef0123456789abcdef'
const servicePort = 18080 + Math.floor(Math.random() * 1000)

/** Sites and carriers as a warm service has them: from memory, no SQL (the ceiling runs the record's own query alone). */
const inMemory: RecordReferences = {
  sites: { getInfos: async () => new Map() },
  carriers: { getVisible: async () => new Map() },
}

/** A fresh database on the admin URL's server, dropped by the returned function. */
async function freshDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const url = new URL(admin!)
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  await client.query(`drop database if exists "${name}" with (force)`)
  await client.query(`create database "${name}"`)
  await client.end()
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin })
      await c.connect()
      await c.query(`drop database if exists "${name}" with (force)`)
      await c.end()
    },
  }
}

const db = admin ? await freshDatabase(`mailroom_bench_${process.pid}`) : undefined
const ceiling = await startProcess(['--import', 'tsx', 'bench/ceiling.ts'], { PORT: '0' })
const service = await startProcess(
  ['bin/mailroom.js', 'serve'],
  {
    MAILROOM_FROM_SOURCE: '1',
    PORT: String(servicePort),
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_ENV: 'development',
    MAILROOM_SECRET: SECRET,
    MAILROOM_DEMO: 'false',
    LOG_LEVEL: 'warn',
    MAILROOM_BOOTSTRAP_CLIENT: `${clientId}:${clientSecret}:bench`,
    // The token scenario is many successful logins from one address: keep failures the only thing limited.
    TOKEN_FAILURE_LIMIT: '1000000',
    // Each scenario is one subscription flat out: measure the service, not its rate limit (the
    // counting still runs on every request, so its cost is in the figures).
    RATE_LIMIT_MAX: '1000000000',
    ...(db ? { DATABASE_URL: db.url } : {}),
  },
  (p) => `http://127.0.0.1:${p}/readyz`,
  servicePort,
)

const base = `http://127.0.0.1:${servicePort}`
const basicAuth = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`
const figures: Figure[] = []
let readOnlyWrites: string | undefined
const targets = receivingTargets(engine)
const measure = async (
  key: keyof ReturnType<typeof receivingTargets> | undefined,
  name: string,
  opts: Parameters<typeof load>[1],
  ceil?: number,
) => {
  const window = cpuWindow(
    {
      service: () => [service.child.pid!],
      'bare route': () => [ceiling.child.pid!],
      PostgreSQL: postgresPids,
      'load generator': () => [process.pid],
    },
    availableParallelism(),
  )
  const f: Figure = { ...(await load(name, opts)), ...(ceil ? { ceiling: ceil } : {}) }
  f.target = verdict(f, key ? targets[key] : undefined)
  figures.push(f)
  cpuPerRequest.push({ scenario: name, requests: f.reqPerSec * seconds, used: window() })
  return f
}
// Where each scenario's CPU went, per request: why a figure is what it is on a machine whose cores
// the service, PostgreSQL and the load generator share (docs/benchmarks.md, "the ratio to the ceiling").
const seconds = Number(process.env.BENCH_SECONDS ?? 8)
const cpuPerRequest: Array<{ scenario: string; requests: number; used: ReturnType<ReturnType<typeof cpuWindow>> }> = []
function printCpuPerRequest(): void {
  console.log('CPU per request (µs), by process, while each scenario ran:')
  console.table(
    cpuPerRequest.map(({ scenario, requests, used }) => {
      const row: Record<string, string | number> = { scenario }
      for (const u of used) row[u.group] = requests > 0 ? Math.round((u.cpuSeconds * 1e6) / requests) : ''
      return row
    }),
  )
}
try {
  const { access_token: token } = (await (
    await fetch(`${base}/auth/api/v1/token`, { method: 'POST', headers: { authorization: basicAuth } })
  ).json()) as { access_token: string }
  const bearer = { authorization: `Bearer ${token}` }
  const { subId } = (await (await fetch(`${base}/api/v1/session`, { headers: bearer })).json()) as { subId: string }
  console.log(
    `mailroom bench: engine=${engine}, ${process.env.BENCH_SECONDS ?? 8} s per scenario, ${CONNECTIONS} connections`,
  )

  const ceil = await measure(undefined, 'ceiling: bare Fastify GET', { url: `http://127.0.0.1:${ceiling.port}/` })
  if (wanted('token'))
    await measure(
      'token',
      'token issuance (POST /auth/api/v1/token)',
      { url: `${base}/auth/api/v1/token`, method: 'POST', headers: { authorization: basicAuth } },
      ceil.reqPerSec,
    )
  // This ratio is the auth hook's whole cost: taken against a ceiling measured just before it, as the
  // speed of a shared machine drifts over the minutes between the first ceiling and this run.
  if (wanted('session')) {
    const near = await measure(undefined, 'ceiling again, beside the auth GET', {
      url: `http://127.0.0.1:${ceiling.port}/`,
    })
    await measure(
      'session',
      'authenticated GET /api/v1/session',
      { url: `${base}/api/v1/session`, headers: bearer },
      near.reqPerSec,
    )
  }

  // Receiving: a package to read, then the write paths with unique numbers per request.
  const json = { ...bearer, 'content-type': 'application/json' }
  const post = poster(base, json)
  const { inboundSiteId, contactId } = await benchMailroom(post)
  const { packageId } = await post('/api/v1/packages', {
    package: { trackingNumber: '1Z999AA10123456784', receiver: { contactId }, carrier: { carrierId: 'UPS' } },
    lastActivity: { status: 'RECEIVED', location: { inboundSiteId } },
  })
  // Reads and updates spread over many packages, as at a real front desk: concurrent reads of one
  // package would be gathered into a query for one row, which flatters the service.
  const pool: string[] = []
  // Valid UPS numbers (the database is fresh each run), so the decode scenario can spread over them too.
  const poolNumber = (i: number) => {
    const body = `999AA101${String(i).padStart(7, '0')}`
    return `1Z${body}${upsCheckDigit(body)}`
  }
  for (let i = 0; i < 200; i++)
    pool.push(
      (
        await post('/api/v1/packages', {
          package: { trackingNumber: poolNumber(i), receiver: { contactId }, carrier: { carrierId: 'UPS' } },
          lastActivity: { status: 'RECEIVED', location: { inboundSiteId } },
        })
      ).packageId!,
    )
  let n = 0
  let r = 0
  const unique = () => `BENCH${process.pid}${(++n).toString(36).toUpperCase().padStart(8, '0')}`
  // Reads first, on a settled database: right after thousands of writes the checkpointer's flushing would be measured too.
  const writes = db ? await writeCounter(admin!, new URL(db.url).pathname.slice(1)) : undefined
  await writes?.before()
  const readsFrom = figures.length
  const get =
    wanted('get') &&
    (await measure(
      'get',
      'get package DETAILED (200 packages in turn)',
      {
        url: `${base}/api/v1/packages/${packageId}?type=DETAILED`,
        headers: bearer,
        setupRequest: (req) => ({ ...req, path: `/api/v1/packages/${pool[r++ % pool.length]}?type=DETAILED` }),
      },
      ceil.reqPerSec,
    ))
  if (db && get)
    figures.push(
      await sqlCeiling(
        db.url,
        'db ceiling: one Get DETAILED SQL per package through pg',
        (k) => loadRecords(k, inMemory, subId, { packageIds: [packageId!] }),
        get,
      ),
    )
  if (wanted('byTracking'))
    await measure(
      'byTracking',
      'get by tracking number (200 in turn)',
      {
        url: `${base}/api/v1/packages/tracking/1Z999AA10123456784`,
        headers: bearer,
        setupRequest: (req) => ({ ...req, path: `/api/v1/packages/tracking/${poolNumber(r++ % pool.length)}` }),
      },
      ceil.reqPerSec,
    )
  if (wanted('decode')) {
    // Scans of 200 held packages in turn (as a front desk works through a delivery): each answer
    // shows the package's contacts, and concurrent scans' lookups are gathered into one query per turn.
    // The one query a 1D decode makes (the held package's record, contacts included), alone through
    // pg: issue 12 asks ≥ 1.0× it. Measured before and after the HTTP run and averaged, as the speed
    // of a shared machine drifts within a minute.
    const lookupSql = (k: Kysely<Database>) => loadRecords(k, inMemory, subId, { trackingNumbers: [poolNumber(0)] })
    const before = db ? await sqlCeiling(db.url, 'before', lookupSql) : undefined
    const decode1d = await measure(
      'decode',
      'decode a 1D scan of a held package (GET decode, 200 in turn)',
      {
        url: `${base}/api/v1/packages/tracking/decode?trackingNumber=1Z999AA10123456784`,
        headers: bearer,
        setupRequest: (req) => ({
          ...req,
          path: `/api/v1/packages/tracking/decode?trackingNumber=${poolNumber(r++ % pool.length)}`,
        }),
      },
      ceil.reqPerSec,
    )
    if (db)
      figures.push(
        await sqlCeiling(
          db.url,
          'db ceiling: the decode lookup SQL (record by tracking number) through pg',
          lookupSql,
          decode1d,
          1.0,
          before,
        ),
      )
    // The lighter existence check decode made before it showed contacts, for comparison.
    if (db)
      figures.push(
        await sqlCeiling(
          db.url,
          'db ceiling: the former existence-only lookup SQL through pg',
          (k) => findByTrackingNumbers(k, subId, [poolNumber(0)], false),
          decode1d,
          1.0,
        ),
      )
  }
  // A UPS MaxiCode as a scanner sends it: envelope, structured carrier message, ship-to, control characters.
  const maxiCode =
    '[)>\u001e01\u001d96841706672\u001d840\u001d001\u001d1Z12345675\u001dUPSN\u001d12345E\u001d089\u001d\u001d1/1\u001d10.1\u001dY\u001d\u001d\u001dUT\u001e\u0004'
  if (wanted('decode'))
    await measure(
      'decode',
      'decode a 2D scan (GET decode, MaxiCode)',
      {
        url: `${base}/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(maxiCode)}`,
        headers: bearer,
      },
      ceil.reqPerSec,
    )
  if (writes) {
    const requests = figures
      .slice(readsFrom)
      .filter((f) => !f.scenario.startsWith('db ceiling'))
      .reduce((a, f) => a + f.reqPerSec * seconds, 0)
    readOnlyWrites = describeWrites(await writes.after(), Math.round(requests))
  }
  // Writes last. Adds go to a building's worth of recipients, as a day at the desk does: a recipient's
  // own parcels share a pickup code and an arrival email. BENCH_ADD_RECIPIENTS=1: every add for one
  // recipient (a mail-order company's desk), the case where a recipient's adds meet.
  const recipientCount = Number(process.env.BENCH_ADD_RECIPIENTS ?? 200)
  const recipients: string[] = []
  if (wanted('add'))
    for (let i = 0; i < recipientCount; i++)
      recipients.push(
        (await post('/api/v1/contacts', { contactType: 'RECEIVER', name: `Resident ${i}`, email: `r${i}@example.com` }))
          .contactId!,
      )
  let nextRecipient = 0
  if (wanted('add'))
    await measure(
      'add',
      `add package (POST /api/v1/packages, ${recipientCount} recipient${recipientCount === 1 ? '' : 's'})`,
      {
        url: `${base}/api/v1/packages`,
        method: 'POST',
        headers: json,
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            package: {
              trackingNumber: unique(),
              receiver: { contactId: recipients[nextRecipient++ % recipients.length] },
              carrier: { carrierId: 'UPS' },
            },
            lastActivity: { status: 'RECEIVED', location: { inboundSiteId } },
          }),
        }),
      },
      ceil.reqPerSec,
    )
  if (wanted('update'))
    await measure(
      'update',
      'update with an activity (PUT)',
      {
        url: `${base}/api/v1/packages/${packageId}`,
        method: 'PUT',
        headers: json,
        setupRequest: (req) => ({
          ...req,
          path: `/api/v1/packages/${pool[n++ % pool.length]}`,
          body: JSON.stringify({ package: { comment: unique() }, lastActivity: { status: 'READY_FOR_PICKUP' } }),
        }),
      },
      ceil.reqPerSec,
    )
  printTable(figures)
  printCpuPerRequest()
  if (readOnlyWrites) console.log(`database writes during the read-only scenarios (HTTP, about): ${readOnlyWrites}`)
  console.log(JSON.stringify({ engine, figures }))
} finally {
  await service.stop()
  await ceiling.stop()
  rmSync(dataDir, { recursive: true, force: true })
  await db?.drop()
}

/**
 * A database ceiling: the SQL of one request of a scenario (captured from `run`), run through `pg`
 * from 50 callers on 20 connections and nothing else (no HTTP, no auth, no JSON). The service
 * gathers concurrent reads into one query per turn (src/platform/kit/batch.ts), so its Get can pass this.
 */
async function sqlCeiling(
  url: string,
  scenario: string,
  run: (k: Kysely<Database>) => Promise<unknown>,
  http?: Figure,
  want?: number,
  before?: Figure,
): Promise<Figure> {
  let captured: CompiledQuery | undefined
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }),
    log: (e) => {
      captured = e.query
    },
  })
  await run(kysely)
  await kysely.destroy()
  const pool = new pg.Pool({ connectionString: url, max: 20 })
  const seconds = Number(process.env.BENCH_SECONDS ?? 8)
  const times: number[] = []
  const end = performance.now() + seconds * 1000
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (performance.now() < end) {
        const t = performance.now()
        await pool.query({ name: 'bench_ceiling', text: captured!.sql, values: captured!.parameters as unknown[] })
        times.push(performance.now() - t)
      }
    }),
  )
  await pool.end()
  times.sort((x, y) => x - y)
  const pct = (q: number) => Number((times[Math.min(times.length - 1, Math.floor(times.length * q))] ?? 0).toFixed(1))
  const measured = Math.round(times.length / seconds)
  // With a run before the HTTP one: their mean, each shown.
  const reqPerSec = before ? Math.round((before.reqPerSec + measured) / 2) : measured
  const runs = before ? ` (mean of ${before.reqPerSec} before and ${measured} after)` : ''
  const ratio = http ? http.reqPerSec / reqPerSec : 0
  const note = http
    ? `HTTP reached ${ratio.toFixed(2)} of it${runs}${want ? ` (${ratio >= want ? 'ok' : 'MISS'} — ≥ ${want.toFixed(1)})` : ''}`
    : ''
  return { scenario, reqPerSec, p50: pct(0.5), p95: pct(0.95), p99: pct(0.99), errors: 0, non2xx: 0, note }
}

// The other scenario groups, each a script of its own (their output streams through).
if (process.env.BENCH_HTTP_ONLY === '1' || only) process.exit(0)
const others: Array<[string, string[], Record<string, string>]> = [
  ['decode in-process', ['--import', 'tsx', 'bench/decode.bench.ts'], {}],
  ['decode label photos', ['--import', 'tsx', 'bench/decode-image.bench.ts', '20'], {}],
  ['label photos to recipients (OCR, matching)', ['--import', 'tsx', 'bench/label-ocr.bench.ts', '40'], {}],
]
const webhookDb = admin ? await freshDatabase(`mailroom_bench_wh_${process.pid}`) : undefined
others.push([
  'webhook delivery',
  ['--import', 'tsx', 'bench/webhooks.bench.ts'],
  webhookDb ? { DATABASE_URL: webhookDb.url } : {},
])
others.push(['images on shared storage', ['--import', 'tsx', 'bench/images.bench.ts'], {}])
if (admin)
  others.push(['cluster: 2 API processes vs 1', ['--import', 'tsx', 'bench/cluster.bench.ts'], { BENCH_PG_URL: admin }])
else console.log('\ncluster: skipped (needs PostgreSQL: set DATABASE_URL)')
if (admin && process.env.BENCH_SEARCH !== '0')
  others.push(['search at scale', ['--import', 'tsx', 'bench/search.bench.ts'], { BENCH_PG_URL: admin }])
else console.log(`\nsearch at scale: skipped (${admin ? 'BENCH_SEARCH=0' : 'needs PostgreSQL: set DATABASE_URL'})`)
try {
  for (const [label, args, env] of others) {
    console.log(`\n== ${label} ==`)
    const r = spawnSync(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'inherit' })
    if (r.status !== 0) console.log(`(${label} exited ${r.status})`)
  }
} finally {
  await webhookDb?.drop()
}
