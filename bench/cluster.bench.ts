import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { benchMailroom, load, poster, printTable, ROOT, startProcess, type Figure } from './lib.js'

/**
 * `npm run bench` (BENCH_ONLY=cluster for this alone), issue 16: two API processes on one
 * PostgreSQL database against one, under the same load (the same load generator, the same 50
 * connections: 25 + 25 to one process, or 25 to each of two). Target: adds and gets through two
 * processes ≥ 1.3 × through one. Needs PostgreSQL: BENCH_PG_URL or DATABASE_URL (an admin URL;
 * a database of its own is created and dropped).
 *
 * Where the time goes: CPU seconds per second of wall time (cores busy) of the API processes, of
 * this database's PostgreSQL backends, of the load generator (this process), and of the whole
 * machine (/proc/stat), so what the rest of the machine took is visible too.
 */
const admin = process.env.BENCH_PG_URL ?? process.env.DATABASE_URL
if (!admin) {
  console.log('cluster: skipped (needs PostgreSQL: set DATABASE_URL or BENCH_PG_URL)')
  process.exit(0)
}
const SECRET = 'mailroom-bench-master-secret-0123456789abcdef'
const clientId = 'bench-client-0001'
const clientSecret = 'bench-secret-0123456789abcdef0123456789abcdef'
const dbName = `mailroom_bench_cluster_${process.pid}`
const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-cluster-'))
const url = new URL(admin)
url.pathname = `/${dbName}`
const dbUrl = url.toString()

async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: admin })
  await c.connect()
  await c.query(sql)
  await c.end()
}

const env = (name: string, port: number): Record<string, string> => ({
  MAILROOM_FROM_SOURCE: '1',
  PORT: String(port),
  DATABASE_URL: dbUrl,
  MAILROOM_DATA_DIR: path.join(dataDir, name),
  MAILROOM_ENV: 'development',
  MAILROOM_SECRET: SECRET,
  MAILROOM_PUBLIC_URL: 'http://mailroom.bench',
  MAILROOM_DEMO: 'false',
  LOG_LEVEL: 'warn',
  MAILROOM_BOOTSTRAP_CLIENT: `${clientId}:${clientSecret}:bench`,
  TOKEN_FAILURE_LIMIT: '1000000',
  RATE_LIMIT_MAX: '1000000000',
  // The API alone: deliveries would take CPU from the very processes measured.
  MAILROOM_WEBHOOK_WORKER: 'false',
  // Each process its share of the database's connections, as a deployment sizes them.
  DATABASE_POOL_SIZE: '10',
})

/** CPU ticks (user + system) of a process, from /proc (Linux). */
function ticksOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}
/** Busy and total ticks of the whole machine. */
function machineTicks(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  const total = cpu.reduce((a, b) => a + b, 0)
  return { busy: total - cpu[3]! - cpu[4]!, total }
}
async function backendPids(): Promise<number[]> {
  const c = new pg.Client({ connectionString: admin })
  await c.connect()
  const { rows } = await c.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [dbName])
  await c.end()
  return rows.map((r) => r.pid)
}

interface CpuSplit {
  api: number
  postgres: number
  generator: number
  machine: number
  cores: number
}

/** Runs `work`, and says how many cores each party kept busy meanwhile. */
async function measured<T>(apiPids: number[], work: () => Promise<T>): Promise<{ result: T; cpu: CpuSplit }> {
  const pgPids = await backendPids()
  const sum = (pids: number[]) => pids.reduce((a, p) => a + ticksOf(p), 0)
  const [api0, pg0, gen0, m0, t0] = [sum(apiPids), sum(pgPids), process.cpuUsage(), machineTicks(), performance.now()]
  const result = await work()
  const seconds = (performance.now() - t0) / 1000
  const gen = process.cpuUsage(gen0)
  const m1 = machineTicks()
  // Backends the pools opened during the run: all their time is the run's.
  const opened = (await backendPids()).filter((p) => !pgPids.includes(p))
  pgPids.push(...opened)
  const hz = 100 // USER_HZ on Linux
  const cores = (m1.total - m0.total) / hz / seconds
  return {
    result,
    cpu: {
      api: (sum(apiPids) - api0) / hz / seconds,
      postgres: (sum(pgPids) - pg0) / hz / seconds,
      generator: (gen.user + gen.system) / 1e6 / seconds,
      machine: ((m1.busy - m0.busy) / (m1.total - m0.total)) * cores,
      cores,
    },
  }
}

await adminQuery(`drop database if exists "${dbName}" with (force)`)
await adminQuery(`create database "${dbName}"`)
const services: Array<Awaited<ReturnType<typeof startProcess>>> = []
try {
  const migrated = spawnSync(process.execPath, ['bin/mailroom.js', 'migrate'], {
    cwd: ROOT,
    env: { ...process.env, ...env('migrate', 0) },
    encoding: 'utf8',
  })
  if (migrated.status !== 0) throw new Error(`migrate failed: ${migrated.stderr}`)
  const ports = [0, 1].map(() => 19080 + Math.floor(Math.random() * 900))
  ports[1] = ports[0]! + 1
  const start = async (i: number) => {
    const s = await startProcess(
      ['bin/mailroom.js', 'serve'],
      env(`api${i}`, ports[i]!),
      (p) => `http://127.0.0.1:${p}/readyz`,
      ports[i],
    )
    services[i] = s // by index, not in the order they became ready: base(i) and services[i] are one process
    return s
  }
  // Both processes from the start: for "one process" the second stays idle, and the runs alternate
  // (one, two, one, two…) so that what the rest of a shared machine does hits both alike.
  await Promise.all([start(0), start(1)])
  const base = (i: number) => `http://127.0.0.1:${ports[i]}`
  const basicAuth = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`
  const { access_token: token } = (await (
    await fetch(`${base(0)}/auth/api/v1/token`, { method: 'POST', headers: { authorization: basicAuth } })
  ).json()) as { access_token: string }
  const bearer = { authorization: `Bearer ${token}` }
  const json = { ...bearer, 'content-type': 'application/json' }
  const post = poster(base(0), json)
  const { inboundSiteId, contactId } = await benchMailroom(post)
  const pool: string[] = []
  for (let i = 0; i < 200; i++)
    pool.push(
      (
        await post('/api/v1/packages', {
          package: {
            trackingNumber: `POOL${String(i).padStart(6, '0')}`,
            receiver: { contactId },
            carrier: { carrierId: 'UPS' },
          },
          lastActivity: { status: 'RECEIVED', location: { inboundSiteId } },
        })
      ).packageId!,
    )

  let n = 0
  let r = 0
  const unique = () => `CLUSTER${process.pid}${(++n).toString(36).toUpperCase().padStart(8, '0')}`
  const gets = (i: number) => ({
    url: `${base(i)}/api/v1/packages/${pool[0]}?type=DETAILED`,
    headers: bearer,
    connections: 25,
    setupRequest: (req: { path?: string }) => ({
      ...req,
      path: `/api/v1/packages/${pool[r++ % pool.length]}?type=DETAILED`,
    }),
  })
  const adds = (i: number) => ({
    url: `${base(i)}/api/v1/packages`,
    method: 'POST' as const,
    headers: json,
    connections: 25,
    setupRequest: (req: { body?: string }) => ({
      ...req,
      body: JSON.stringify({
        package: { trackingNumber: unique(), receiver: { contactId }, carrier: { carrierId: 'UPS' } },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId } },
      }),
    }),
  })
  /** 50 connections in two autocannon instances of 25, at the processes given; their sum. */
  const both = async (scenario: string, targets: [number, number], make: typeof gets | typeof adds) => {
    const pids = [...new Set(targets)].map((i) => services[i]!.child.pid!)
    const { result, cpu } = await measured(pids, () => Promise.all(targets.map((i) => load(scenario, make(i)))))
    const f: Figure = {
      scenario,
      reqPerSec: result[0]!.reqPerSec + result[1]!.reqPerSec,
      p50: Math.max(result[0]!.p50, result[1]!.p50),
      p95: Math.max(result[0]!.p95 ?? 0, result[1]!.p95 ?? 0),
      p99: Math.max(result[0]!.p99, result[1]!.p99),
      errors: result[0]!.errors + result[1]!.errors,
      non2xx: result[0]!.non2xx + result[1]!.non2xx,
    }
    return { f, cpu }
  }

  const rounds = Number(process.env.BENCH_CLUSTER_ROUNDS ?? 2)
  type Run = Awaited<ReturnType<typeof both>>
  const runs: Record<'one' | 'two', Record<'get' | 'add', Run[]>> = {
    one: { get: [], add: [] },
    two: { get: [], add: [] },
  }
  for (const key of ['get', 'add'] as const) {
    for (let i = 0; i < rounds; i++) {
      runs.one[key].push(
        await both(`${key === 'get' ? 'get DETAILED' : 'add'}, 1 API process`, [0, 0], key === 'get' ? gets : adds),
      )
      runs.two[key].push(
        await both(`${key === 'get' ? 'get DETAILED' : 'add'}, 2 API processes`, [0, 1], key === 'get' ? gets : adds),
      )
    }
  }
  /** The rounds of one configuration as one figure (means; worst percentiles) and one CPU split (means). */
  const merge = (list: Run[]): Run => {
    const mean = (f: (r: Run) => number) => list.reduce((a, r) => a + f(r), 0) / list.length
    const f: Figure = {
      ...list[0]!.f,
      reqPerSec: Math.round(mean((r) => r.f.reqPerSec)),
      p50: Math.max(...list.map((r) => r.f.p50)),
      p95: Math.max(...list.map((r) => r.f.p95 ?? 0)),
      p99: Math.max(...list.map((r) => r.f.p99)),
      errors: list.reduce((a, r) => a + r.f.errors, 0),
      non2xx: list.reduce((a, r) => a + r.f.non2xx, 0),
      note: `rounds: ${list.map((r) => r.f.reqPerSec).join(', ')} req/s`,
    }
    return {
      f,
      cpu: {
        api: mean((r) => r.cpu.api),
        postgres: mean((r) => r.cpu.postgres),
        generator: mean((r) => r.cpu.generator),
        machine: mean((r) => r.cpu.machine),
        cores: mean((r) => r.cpu.cores),
      },
    }
  }
  const one = { get: merge(runs.one.get), add: merge(runs.one.add) }
  const two = { get: merge(runs.two.get), add: merge(runs.two.add) }

  const figures: Figure[] = []
  for (const key of ['get', 'add'] as const) {
    const ratio = two[key].f.reqPerSec / one[key].f.reqPerSec
    figures.push(one[key].f, {
      ...two[key].f,
      note: `${ratio.toFixed(2)} × one process; ${two[key].f.note}`,
      target: `${two[key].f.errors + two[key].f.non2xx > 0 ? 'FAIL (errors)' : ratio >= 1.3 ? 'ok' : 'MISS'} — ≥ 1.3 × one process`,
    })
  }
  console.log(
    `cluster bench: PostgreSQL, ${rounds} alternating rounds of ${process.env.BENCH_SECONDS ?? 8} s per configuration, 50 connections (25 + 25) from one load generator`,
  )
  printTable(figures)
  const split = (label: string, c: CpuSplit) => ({
    run: label,
    'API node': c.api.toFixed(2),
    'postgres (this db)': c.postgres.toFixed(2),
    'load generator': c.generator.toFixed(2),
    'rest of machine': Math.max(0, c.machine - c.api - c.postgres - c.generator).toFixed(2),
    'machine busy': `${c.machine.toFixed(2)} of ${c.cores.toFixed(1)}`,
  })
  console.log('Where the time goes (cores busy during each run: CPU seconds per second):')
  console.table([
    split('get, 1 process', one.get.cpu),
    split('get, 2 processes', two.get.cpu),
    split('add, 1 process', one.add.cpu),
    split('add, 2 processes', two.add.cpu),
  ])
  console.log(
    JSON.stringify({
      scenario: 'cluster',
      figures,
      cpu: { one: { get: one.get.cpu, add: one.add.cpu }, two: { get: two.get.cpu, add: two.add.cpu } },
    }),
  )
} finally {
  for (const s of services) await s?.stop()
  rmSync(dataDir, { recursive: true, force: true })
  await adminQuery(`drop database if exists "${dbName}" with (force)`)
}
