import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { upsCheckDigit } from '../src/decode/index.js'
import { cpuWindow } from './cpu.js'
import { describeWrites, writeCounter, type WriteCounts } from './db-writes.js'
import { benchMailroom, CONNECTIONS, load, poster, ROOT, startProcess, type Figure, type LoadOptions } from './lib.js'

/**
 * `BENCH_VS=<commit> npm run bench`: this checkout and an earlier commit side by side in one run
 * (issue 26: "at least the previous release's figures, measured side by side"). The commit is
 * checked out in a temporary git worktree (node_modules linked from here); each side runs as its own
 * service on its own database, seeded alike; every scenario is measured on the bare-Fastify ceiling,
 * then on both sides, in alternating order from round to round (BENCH_VS_ROUNDS, 2), so the drift
 * of a shared machine falls on both alike. On PostgreSQL (DATABASE_URL) the rows each side's
 * database wrote during the read-only scenarios are counted (bench/db-writes.ts).
 */
const commit = process.env.BENCH_VS!
const admin = process.env.DATABASE_URL
const rounds = Number(process.env.BENCH_VS_ROUNDS ?? 2)
const seconds = Number(process.env.BENCH_SECONDS ?? 8)
const SECRET = 'mailroom-bench-master-secret-0123456789abcdef'
const clientId = 'bench-client-0001'
const clientSecret = 'bench-secret-0123456789abcdef0123456789abcdef'
const basicAuth = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`

interface Side {
  label: string
  base: string
  bearer: Record<string, string>
  packageIds: string[]
  /** The add scenario's recipients: a building's worth, as bench/run.ts's add goes to. */
  recipients: string[]
  inboundSiteId: string
  /** The service's process: its CPU per request is read around each measured run. */
  pid: number
  database?: string
  stop(): Promise<void>
}

const poolNumber = (i: number) => {
  const body = `999AA101${String(i).padStart(7, '0')}`
  return `1Z${body}${upsCheckDigit(body)}`
}

async function adminQuery(text: string): Promise<void> {
  const c = new pg.Client({ connectionString: admin })
  await c.connect()
  await c.query(text)
  await c.end()
}

/** One side: its service started in `cwd` on a database of its own, 200 held packages and 50 recipients. */
async function startSide(label: string, cwd: string, n: number): Promise<Side> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `mailroom-vs-${n}-`))
  const database = admin ? `mailroom_vs_${process.pid}_${n}` : undefined
  let url: string | undefined
  if (database) {
    await adminQuery(`drop database if exists "${database}" with (force)`)
    await adminQuery(`create database "${database}"`)
    const u = new URL(admin!)
    u.pathname = `/${database}`
    url = u.toString()
  }
  const port = 19080 + n * 100 + Math.floor(Math.random() * 100)
  const service = await startProcess(
    ['bin/mailroom.js', 'serve'],
    {
      MAILROOM_FROM_SOURCE: '1',
      PORT: String(port),
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_ENV: 'development',
      MAILROOM_SECRET: SECRET,
      MAILROOM_DEMO: 'false',
      LOG_LEVEL: 'warn',
      MAILROOM_BOOTSTRAP_CLIENT: `${clientId}:${clientSecret}:bench`,
      TOKEN_FAILURE_LIMIT: '1000000',
      RATE_LIMIT_MAX: '1000000000',
      ...(url ? { DATABASE_URL: url } : {}),
    },
    (p) => `http://127.0.0.1:${p}/readyz`,
    port,
    cwd,
  )
  const base = `http://127.0.0.1:${port}`
  const { access_token: token } = (await (
    await fetch(`${base}/auth/api/v1/token`, { method: 'POST', headers: { authorization: basicAuth } })
  ).json()) as { access_token: string }
  const bearer = { authorization: `Bearer ${token}` }
  const post = poster(base, { ...bearer, 'content-type': 'application/json' })
  const { inboundSiteId, contactId } = await benchMailroom(post)
  const packageIds: string[] = []
  for (let i = 0; i < 200; i++)
    packageIds.push(
      (
        await post('/api/v1/packages', {
          package: { trackingNumber: poolNumber(i), receiver: { contactId }, carrier: { carrierId: 'UPS' } },
          lastActivity: { status: 'RECEIVED', location: { inboundSiteId } },
        })
      ).packageId!,
    )
  const recipients: string[] = []
  for (let i = 0; i < 50; i++)
    recipients.push(
      (await post('/api/v1/contacts', { contactType: 'RECEIVER', name: `Resident ${i}`, email: `r${i}@example.com` }))
        .contactId!,
    )
  return {
    label,
    base,
    bearer,
    packageIds,
    recipients,
    inboundSiteId,
    pid: service.child.pid!,
    database,
    async stop() {
      await service.stop()
      rmSync(dataDir, { recursive: true, force: true })
      if (database) await adminQuery(`drop database if exists "${database}" with (force)`)
    },
  }
}

/** The scenarios of bench/run.ts that both releases serve, read-only ones first. */
type Scenario = { key: string; name: string; readOnly: boolean; opts: LoadOptions }
function scenarios(s: Side): Scenario[] {
  let r = 0
  let added = 0 // tracking numbers after the held pool's, one per add, never twice on a side
  const all: Scenario[] = [
    {
      key: 'session',
      name: 'authenticated GET /api/v1/session',
      readOnly: true,
      opts: { url: `${s.base}/api/v1/session`, headers: s.bearer },
    },
    {
      key: 'get',
      name: 'get package DETAILED (200 in turn)',
      readOnly: true,
      opts: {
        url: `${s.base}/api/v1/packages/${s.packageIds[0]}?type=DETAILED`,
        headers: s.bearer,
        setupRequest: (req) => ({ ...req, path: `/api/v1/packages/${s.packageIds[r++ % 200]}?type=DETAILED` }),
      },
    },
    {
      key: 'byTracking',
      name: 'get by tracking number (200 in turn)',
      readOnly: true,
      opts: {
        url: `${s.base}/api/v1/packages/tracking/${poolNumber(0)}`,
        headers: s.bearer,
        setupRequest: (req) => ({ ...req, path: `/api/v1/packages/tracking/${poolNumber(r++ % 200)}` }),
      },
    },
    {
      key: 'token',
      name: 'token issuance (POST /auth/api/v1/token)',
      readOnly: false,
      opts: { url: `${s.base}/auth/api/v1/token`, method: 'POST', headers: { authorization: basicAuth } },
    },
    {
      key: 'add',
      name: 'add package (POST /api/v1/packages, 50 recipients)',
      readOnly: false,
      opts: {
        url: `${s.base}/api/v1/packages`,
        method: 'POST',
        headers: { ...s.bearer, 'content-type': 'application/json' },
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            package: {
              trackingNumber: poolNumber(1000 + added),
              receiver: { contactId: s.recipients[added++ % s.recipients.length] },
              carrier: { carrierId: 'UPS' },
            },
            lastActivity: { status: 'RECEIVED', location: { inboundSiteId: s.inboundSiteId } },
          }),
        }),
      },
    },
  ]
  return all.filter((p) => !only || only.includes(p.key))
}

// BENCH_ONLY=add,token…: only those scenarios (bench/run.ts's keys), e.g. more rounds of one figure.
const only = process.env.BENCH_ONLY?.split(',')

const worktree = mkdtempSync(path.join(tmpdir(), 'mailroom-vs-tree-'))
execFileSync('git', ['worktree', 'add', '--detach', worktree, commit], { cwd: ROOT, stdio: 'inherit' })
// The same lockfile: this checkout's node_modules serve it. Another: its own, installed as npm ci
// does (install scripts off, as in this repository).
const lock = (dir: string) => readFileSync(path.join(dir, 'package-lock.json'), 'utf8')
if (lock(worktree) === lock(ROOT)) symlinkSync(path.join(ROOT, 'node_modules'), path.join(worktree, 'node_modules'))
else {
  console.log(`${commit} has another package-lock.json: npm ci in its worktree`)
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: worktree, stdio: 'inherit' })
}
const sides: Side[] = []
const ceiling = await startProcess(['--import', 'tsx', 'bench/ceiling.ts'], { PORT: '0' })
try {
  sides.push(await startSide('current', ROOT, 0))
  sides.push(await startSide(commit.slice(0, 8), worktree, 1))
  console.log(
    `mailroom bench, this checkout vs ${commit}: engine=${admin ? 'postgres' : 'pglite'}, ${rounds} rounds of ${seconds} s per scenario and side, ${CONNECTIONS} connections`,
  )
  const plans = sides.map(scenarios)
  const results = plans[0]!.map(() => ({
    ceilings: [] as number[],
    bySide: sides.map(() => [] as Figure[]),
    // The service's CPU (user + system) per request, µs: less swayed by the rest of the machine than req/s.
    cpuUs: sides.map(() => [] as number[]),
  }))
  const counters = admin ? await Promise.all(sides.map((s) => writeCounter(admin, s.database!))) : []
  const readOnly = plans[0]!.flatMap((p, i) => (p.readOnly ? [i] : []))
  const measureScenario = async (i: number, round: number) => {
    results[i]!.ceilings.push((await load('ceiling', { url: `http://127.0.0.1:${ceiling.port}/` })).reqPerSec)
    const order = round % 2 === 0 ? [0, 1] : [1, 0]
    for (const k of order) {
      let end: ReturnType<typeof cpuWindow> | undefined
      let used = 0
      const f = await load(plans[k]![i]!.name, plans[k]![i]!.opts, {
        start: () => (end = cpuWindow({ service: () => [sides[k]!.pid] }, 2)),
        end: () => (used = end!()[0]!.cpuSeconds),
      })
      results[i]!.bySide[k]!.push(f)
      results[i]!.cpuUs[k]!.push(Math.round((used * 1e6) / Math.max(1, f.reqPerSec * seconds)))
    }
  }
  // The read-only scenarios together, with the writes they cause counted around them.
  if (admin) await Promise.all(counters.map((c) => c.before()))
  for (let round = 0; round < rounds; round++) for (const i of readOnly) await measureScenario(i, round)
  const writes: WriteCounts[] = admin ? await Promise.all(counters.map((c) => c.after())) : []
  for (let round = 0; round < rounds; round++)
    for (let i = 0; i < plans[0]!.length; i++) if (!readOnly.includes(i)) await measureScenario(i, round)

  const rows = plans[0]!.map((p, i) => {
    const r = results[i]!
    const row: Record<string, string> = { scenario: p.name, 'ceiling req/s': r.ceilings.join(' / ') }
    sides.forEach((s, k) => {
      row[s.label] = r.bySide[k]!.map(
        (f, j) =>
          `${f.reqPerSec} (${(f.reqPerSec / r.ceilings[j]!).toFixed(2)}, p99 ${f.p99})${f.errors + f.non2xx ? ` ${f.errors + f.non2xx} errors` : ''}`,
      ).join(' / ')
    })
    const mean = (k: number) => r.bySide[k]!.reduce((a, f) => a + f.reqPerSec, 0) / r.bySide[k]!.length
    row['current ÷ earlier'] = (mean(0) / mean(1)).toFixed(2)
    return row
  })
  console.log("\nreq/s per round (ratio to that round's ceiling, p99 ms):")
  console.table(rows)
  console.log("\nThe service's CPU per request (µs) per round; the ratio of the means (lower is cheaper):")
  console.table(
    plans[0]!.map((p, i) => {
      const r = results[i]!
      const row: Record<string, string> = { scenario: p.name }
      sides.forEach((s, k) => (row[s.label] = r.cpuUs[k]!.join(' / ')))
      const mean = (k: number) => r.cpuUs[k]!.reduce((a, v) => a + v, 0) / r.cpuUs[k]!.length
      row['current ÷ earlier'] = (mean(0) / mean(1)).toFixed(2)
      return row
    }),
  )
  if (admin) {
    const requests = (k: number) =>
      readOnly.reduce((a, i) => a + results[i]!.bySide[k]!.reduce((b, f) => b + f.reqPerSec * seconds, 0), 0)
    console.log(
      '\nDatabase writes during the read-only scenarios (about; warm-up requests not counted in the requests):',
    )
    sides.forEach((s, k) => console.log(`  ${s.label}: ${describeWrites(writes[k]!, Math.round(requests(k)))}`))
  }
  console.log(JSON.stringify({ commit, results: results.map((r, i) => ({ scenario: plans[0]![i]!.name, ...r })) }))
} finally {
  for (const s of sides) await s.stop()
  await ceiling.stop()
  execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: ROOT, stdio: 'inherit' })
}
