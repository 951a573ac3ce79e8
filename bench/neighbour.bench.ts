import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import pg from 'pg'
import { cpuWindow, postgresPids } from './cpu.js'
import { load, NAME_TERMS, printTable, ROOT, startProcess, type Figure } from './lib.js'
import { noisyLoad } from './noisy-load.js'

/**
 * A noisy neighbour (issue 14, availability), `npm run bench:neighbour` with DATABASE_URL (an admin
 * URL of a PostgreSQL server): while one subscription runs its most expensive requests flat out
 * (second-tier name searches, CSV exports, list-taking bulk operations), another subscription's
 * GETs keep their p99 within 2x of the idle figure.
 *
 * Both subscriptions are seeded with `mailroom seed` into a fresh database (the noisy one with
 * NEIGHBOUR_PACKAGES packages, default 100,000), then one `serve` process runs with its default
 * limits (TenantGate bounds, statement timeout, rate limits); the quiet tenant's own rate limit is
 * raised so the load generator measures latency, not its own 429s. PostgreSQL only: PGlite runs one
 * statement at a time in the API's process, so a long search there delays everything by design.
 */
const admin = process.env.DATABASE_URL
if (!admin) {
  console.error('bench:neighbour needs DATABASE_URL (an admin URL of a PostgreSQL server)')
  process.exit(2)
}
const packages = Number(process.env.NEIGHBOUR_PACKAGES ?? 100_000)
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const quietConnections = Number(process.env.QUIET_CONNECTIONS ?? 4)
/**
 * QUIET_RATE=n: the quiet tenant sends n requests a second (a tenant going about its business)
 * instead of as many as its connections get answered. Flat out (the default), the quiet tenant
 * itself saturates the machine when idle, so any other tenant's fair share of it shows as lost
 * throughput, and in a closed loop as latency: half the machine for the neighbour means about twice
 * the quiet tenant's latency, whatever the service does.
 */
const quietRate = Number(process.env.QUIET_RATE ?? 0)
const SECRET = 'mailroom-bench-master-secret-0123456789abcdef'
/** Which of the neighbour's loads run (to see what each costs the quiet tenant): search, export, bulk, bodies. */
/** NEIGHBOUR_SCALE=k: the neighbour opens k times as many connections of each kind (a bigger flood). */
const scale = Number(process.env.NEIGHBOUR_SCALE ?? 1)
const kinds = new Set((process.env.NEIGHBOUR_LOADS ?? 'search,export,bulk').split(','))
/** NEIGHBOUR_LOADS=bodies: where the large bodies go (`METHOD path`), and their size (1 MiB: BODY_LIMIT_BYTES' default). */
const bodyRoute = process.env.NEIGHBOUR_BODY_ROUTE ?? 'PUT /api/v1/notifications/settings'
const bodyKiB = Number(process.env.NEIGHBOUR_BODY_KIB ?? 1024)

/** The neighbour's process: runs its loads and prints their figures as JSON. */
async function runNeighbour(spec: { base: string; auth: Record<string, string>; locations: string[] }): Promise<never> {
  const { base, auth, locations } = spec
  let t = 0
  const loads = [
    kinds.has('search') &&
      noisyLoad('second-tier name search', {
        url: `${base}/api/v1/packages`,
        headers: auth,
        connections: 8 * scale,
        requests: [
          {
            setupRequest: (r) => ({
              ...r,
              path: `/api/v1/packages?search=receiver.name:${NAME_TERMS[t++ % NAME_TERMS.length]}&secondTierSearchSelected=true`,
            }),
          },
        ],
      }),
    kinds.has('export') &&
      noisyLoad('CSV export of every package', {
        url: `${base}/api/v1/packages/search`,
        method: 'POST',
        headers: { ...auth, accept: 'text/csv', 'content-type': 'application/json' },
        body: '{}',
        connections: 3 * scale,
      }),
    kinds.has('bulk') &&
      noisyLoad('sites of its locations', {
        url: `${base}/api/v1/location/inboundsites`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(locations),
        connections: 6 * scale,
      }),
    // Issue 26.3: large invalid JSON bodies (all answered 400, or 413 past the route's limit), in a loop.
    kinds.has('bodies') &&
      noisyLoad(`${bodyKiB} KiB invalid JSON bodies to ${bodyRoute}`, {
        url: `${base}${bodyRoute.split(' ')[1]}`,
        method: bodyRoute.split(' ')[0] as 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '['.padEnd(bodyKiB * 1024, '1'),
        connections: 8 * scale,
      }),
  ]
  process.stdout.write(JSON.stringify(await Promise.all(loads.filter((l) => l !== false))))
  process.exit(0)
}

if (process.env.NEIGHBOUR_CHILD)
  await runNeighbour(JSON.parse(process.env.NEIGHBOUR_CHILD) as Parameters<typeof runNeighbour>[0])

// NEIGHBOUR_KEEP=<file> (bench/fairness-ab.ts): the seeded database is kept and named in that file,
// and a later run with the same file measures on it without seeding again.
const keep = process.env.NEIGHBOUR_KEEP
const kept = keep && existsSync(keep) ? (JSON.parse(readFileSync(keep, 'utf8')) as Kept) : undefined
interface Kept {
  name: string
  noisy: { subId: string; clientId: string; clientSecret: string }
  quiet: { subId: string; clientId: string; clientSecret: string }
}
const name = kept?.name ?? `mailroom_neighbour_${process.pid}`
if (!kept) {
  const adminClient = new pg.Client({ connectionString: admin })
  await adminClient.connect()
  await adminClient.query(`drop database if exists "${name}" with (force)`)
  await adminClient.query(`create database "${name}"`)
  await adminClient.end()
}
const url = new URL(admin)
url.pathname = `/${name}`
const env: Record<string, string> = {
  DATABASE_URL: url.toString(),
  MAILROOM_SECRET: SECRET,
  MAILROOM_DATA_DIR: os.tmpdir(),
  LOG_LEVEL: 'warn',
  MAILROOM_WEBHOOK_WORKER: 'false',
}

function seed(
  subscription: string,
  n: number,
  contacts: number,
): { subId: string; clientId: string; clientSecret: string } {
  console.log(`seeding ${subscription}: ${n} packages…`)
  const r = spawnSync(
    process.execPath,
    [
      'bin/mailroom.js',
      'seed',
      '--packages',
      String(n),
      '--contacts',
      String(contacts),
      '--subscription',
      subscription,
      '--json',
    ],
    { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 24 },
  )
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout) as { subId: string; clientId: string; clientSecret: string }
}

const noisy = kept?.noisy ?? seed('noisy', packages, 5000)
const quiet = kept?.quiet ?? seed('quiet', 2000, 500)
if (keep && !kept) writeFileSync(keep, JSON.stringify({ name, noisy, quiet } satisfies Kept))
const port = 19080 + Math.floor(Math.random() * 900)
const service = await startProcess(
  ['bin/mailroom.js', 'serve'],
  { ...env, PORT: String(port), MAILROOM_DEMO: 'false', RATE_LIMIT_OVERRIDES: `${quiet.subId}=100000000` },
  (p) => `http://127.0.0.1:${p}/readyz`,
  port,
)
const base = `http://127.0.0.1:${port}`

async function token(c: { clientId: string; clientSecret: string }): Promise<Record<string, string>> {
  const res = await fetch(`${base}/auth/api/v1/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}` },
  })
  return { authorization: `Bearer ${((await res.json()) as { access_token: string }).access_token}` }
}

try {
  const quietAuth = await token(quiet)
  const noisyAuth = await token(noisy)
  const locations = (
    (await (await fetch(`${base}/api/v1/locations?limit=200`, { headers: noisyAuth })).json()) as {
      locations: Array<{ locationId: string }>
    }
  ).locations.map((l) => l.locationId)
  const quietGet = {
    url: `${base}/api/v1/contacts?limit=25`,
    headers: quietAuth,
    connections: quietConnections,
    durationSeconds: seconds,
    overallRate: quietRate || undefined,
  }
  const quietHow = `${quietConnections} conn.${quietRate ? `, ${quietRate} req/s` : ''}`

  const idle = await load(`quiet tenant GET contacts, idle (${quietHow})`, quietGet)

  for (const [what, res] of [
    ['quiet GET', await fetch(quietGet.url, { headers: quietAuth })],
    [
      'second-tier search',
      await fetch(`${base}/api/v1/packages?search=receiver.name:son&secondTierSearchSelected=true`, {
        headers: noisyAuth,
      }),
    ],
  ] as const)
    console.log(`${what}: ${res.status} in one request alone`)

  // The noisy tenant, flat out, from a process of its own: its flood of fast 429s must not slow the
  // load generator that times the quiet tenant. Each kind with more connections than its bound.
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/neighbour.bench.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NEIGHBOUR_CHILD: JSON.stringify({ base, auth: noisyAuth, locations }) },
  })
  let childOut = ''
  child.stdout.on('data', (d: Buffer) => (childOut += d.toString()))
  const noisyDone = new Promise<Figure[]>((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(childOut) as Figure[]) : reject(new Error(`neighbour load exited ${code}`)),
    ),
  )
  // Let the neighbour's requests pile up before measuring.
  await new Promise((r) => setTimeout(r, 3500))
  const cpu = cpuWindow(
    {
      'mailroom (one serve process)': () => [service.child.pid!],
      PostgreSQL: postgresPids,
      "neighbour's load generator": () => [child.pid!],
      "quiet tenant's load generator (this process)": () => [process.pid],
    },
    os.cpus().length,
  )
  const loaded = await load(`quiet tenant GET contacts, neighbour flat out (${quietHow})`, quietGet)
  const cpuUsed = cpu()
  const noisyFigures = await noisyDone
  const ratio = loaded.p99 / Math.max(idle.p99, 0.1)
  loaded.target = `${ratio <= 2 ? 'ok' : 'MISS'} — p99 ${ratio.toFixed(2)}x idle (≤ 2x)`
  const figures: Figure[] = [idle, loaded, ...noisyFigures]
  console.log(
    `\nnoisy neighbour on PostgreSQL (FAIRNESS_OFF=${process.env.FAIRNESS_OFF || 'none'}), ${packages} packages in the noisy subscription, ${os.cpus().length} cores (shared with the database and the load generator)`,
  )
  printTable(figures)
  console.log(`NEIGHBOUR_RESULT ${JSON.stringify({ idle, loaded, ratio })}`)
  console.log('\nwhere the time went while the quiet tenant was measured (CPU of each side, share of all cores):')
  console.table(cpuUsed)
} finally {
  await service.stop()
  const c = new pg.Client({ connectionString: admin })
  await c.connect()
  if (!keep) await c.query(`drop database if exists "${name}" with (force)`)
  await c.end()
}
