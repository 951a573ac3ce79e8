/**
 * Webhook delivery throughput and latency: `node --import tsx bench/webhooks.bench.ts`.
 *
 * A local receiver (node:http on 127.0.0.1, 200 at once), two workers, events written through the
 * outbox (`enqueueEvents`, as the packages service writes them). With DATABASE_URL the workers are
 * two `mailroom worker` processes sharing the PostgreSQL database; without it, PGlite is one
 * process's database, so the two workers run in this process on its one connection.
 *
 *   throughput: BENCH_EVENTS events (default 20 000) written in batches of 500; deliveries/s from the
 *               first commit to the last delivery received (target ≥ 1 000/s on PostgreSQL)
 *   hot:        BENCH_HOT_EVENTS events (default 5 000; 0 skips it) concentrated on BENCH_HOT_PACKAGES
 *               packages (default 20) that receive every update, in batches of 500; deliveries/s as
 *               above (target ≥ 500/s on PostgreSQL), and any package's events received out of order
 *   latency:    BENCH_TRICKLE_RATE events/s (default 200) for 5 s; from each event's commit to its
 *               first attempt arriving at the receiver, p50/p95/p99 (target p95 ≤ 1 s)
 *
 * Each worker claims WEBHOOK_WORKER_BATCH and keeps up to WEBHOOK_WORKER_CONCURRENCY sends in
 * flight: the service's defaults (src/app/config.ts) unless set, so the figures are those of a deployment
 * that changed nothing; set them to compare. Use a database of its own (it needs the workers'
 * MAILROOM_SECRET; default a fixed bench secret).
 *
 *   purge:      BENCH_PURGE deliveries (default 20 000; 0 skips it) with two attempts each, finished
 *               past the retention period, deleted by the retention job; deliveries/s (it must stay
 *               well above the rate deliveries are created, 1 000/s at the target)
 *
 * A warm-up of 500 events comes first, and VACUUM (ANALYZE) after it and after the throughput
 * phase (what autovacuum does on a normal server). Prints one JSON document.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { sql } from 'kysely'
import { loadConfig } from '../src/app/config.js'
import { openDatabase } from '../src/platform/db/database.js'
import { migrateToLatest } from '../src/platform/db/migrate.js'
import { inTransaction } from '../src/platform/db/transaction.js'
import { systemClock } from '../src/platform/kit/clock.js'
import { deriveKey } from '../src/platform/kit/crypto.js'
import { defaultIds } from '../src/platform/kit/ids.js'
import { createJobs } from '../src/webhooks/jobs/jobs.js'
import { enqueueEvents } from '../src/events/outbox.js'
import { createWebhooks } from '../src/webhooks/module.js'

const ROOT = path.resolve(import.meta.dirname, '..')
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000)
const HOT_EVENTS = Number(process.env.BENCH_HOT_EVENTS ?? 5_000)
const HOT_PACKAGES = Number(process.env.BENCH_HOT_PACKAGES ?? 20)
const TRICKLE_RATE = Number(process.env.BENCH_TRICKLE_RATE ?? 200)
const TRICKLE_SECONDS = 5
const PURGE = Number(process.env.BENCH_PURGE ?? 20_000)
// The workers open the database's token signing keys with it: a database the bench used before needs the same one.
const SECRET = process.env.MAILROOM_SECRET ?? 'mailroom-webhooks-bench-secret-0123456789'
const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-webhooks-'))
const env: Record<string, string> = {
  MAILROOM_ENV: 'development',
  MAILROOM_SECRET: SECRET,
  MAILROOM_DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  MAILROOM_WEBHOOK_ALLOW_HTTP: 'true',
  MAILROOM_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
  ...(process.env.WEBHOOK_WORKER_BATCH ? { WEBHOOK_WORKER_BATCH: process.env.WEBHOOK_WORKER_BATCH } : {}),
  ...(process.env.WEBHOOK_WORKER_CONCURRENCY
    ? { WEBHOOK_WORKER_CONCURRENCY: process.env.WEBHOOK_WORKER_CONCURRENCY }
    : {}),
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
}
const config = loadConfig(env)
const sealKey = deriveKey(SECRET, 'webhook-credential-seal')

// The receiver: the first arrival of each webhook-id, in ms since the epoch, and per package the
// highest sequence received so far (a lower one arriving after it is out of order).
const arrivals = new Map<string, number>()
let duplicates = 0
const lastSequence = new Map<string, number>()
let outOfOrder = 0
const receiver = createServer((req, res) => {
  const id = String(req.headers['webhook-id'])
  const first = !arrivals.has(id)
  if (first) arrivals.set(id, Date.now())
  else duplicates++
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    if (first) {
      const { data } = JSON.parse(Buffer.concat(chunks).toString()) as { data: { packageId: string; sequence: number } }
      if (data.sequence < (lastSequence.get(data.packageId) ?? 0)) outOfOrder++
      else lastSequence.set(data.packageId, data.sequence)
    }
    res.writeHead(200).end()
  })
})
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
const port = (receiver.address() as AddressInfo).port

const database = await openDatabase(
  config.database.kind === 'postgres' ? config.database : { kind: 'pglite', dir: 'memory' },
)
const db = database.db
await migrateToLatest(db)
const subId = `sub_bench_${randomBytes(4).toString('hex')}`
await db.insertInto('subscriptions').values({ sub_id: subId, name: subId }).execute()
const admin = createWebhooks({ db, clock: systemClock, ids: defaultIds, config, sealKey })
const cfg = await admin.configs.create(subId, 'tracking', {
  name: 'bench',
  type: 'tracking',
  events: ['Received'],
  url: `http://127.0.0.1:${port}/hook`,
  timeOut: 5,
  status: 'active',
  authParams: { authType: 'none' },
})

// Two workers: processes on PostgreSQL, in-process on PGlite.
const children: ChildProcess[] = []
const stops: Array<() => Promise<void>> = []
if (database.engine === 'postgres') {
  for (let i = 0; i < 2; i++) {
    // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each worker there.
    const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []
    const child = spawn(process.execPath, [...prof, path.join(ROOT, 'bin/mailroom.js'), 'worker'], {
      cwd: ROOT,
      env: { ...process.env, ...env, LOG_LEVEL: 'info', MAILROOM_FROM_SOURCE: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    children.push(child)
    await new Promise<void>((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString()
        if (out.includes('webhook worker is up')) resolve()
      })
      child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${out}`)))
    })
    child.stdout.resume()
  }
} else {
  for (let i = 0; i < 2; i++)
    stops.push(createWebhooks({ db, clock: systemClock, ids: defaultIds, config, sealKey }).start())
}

let seq = 0
const hotSequences = new Map<string, number>()
/**
 * Writes `count` events in one transaction; returns their ids and the commit time. Each event is a
 * new package's, or with `hot` the next update of one of `hot` packages, in turn.
 */
async function write(count: number, hot?: number): Promise<{ ids: string[]; committedAt: number }> {
  const ids = Array.from({ length: count }, () => defaultIds('evt_'))
  await inTransaction(db, (trx) =>
    enqueueEvents(
      trx,
      ids.map((eventId) => {
        const n = ++seq
        const packageId = hot ? `pkg_hot_${subId}_${n % hot}` : `pkg_bench_${n}`
        const sequence = (hotSequences.get(packageId) ?? 0) + 1
        hotSequences.set(packageId, sequence)
        return {
          eventId,
          subId,
          packageId,
          variant: 'tracking' as const,
          eventName: 'Received',
          sequence,
          occurredAt: new Date(),
          data: { packageId, trackingNumber: `1ZBENCH${n}`, currentStatus: 'RECEIVED', previousStatus: null, sequence },
        }
      }),
    ),
  )
  return { ids, committedAt: Date.now() }
}

/** `events` events written in batches of 500; deliveries/s from the first commit to the last arrival. */
async function throughputOf(events: number, hot?: number) {
  const started = Date.now()
  const written: string[] = []
  for (let i = 0; i < events; i += 500) written.push(...(await write(Math.min(500, events - i), hot)).ids)
  const writeSeconds = (Date.now() - started) / 1000
  const drained = await until(() => written.every((id) => arrivals.has(id)), 300_000)
  const last = Math.max(...written.map((id) => arrivals.get(id) ?? Date.now()))
  const seconds = (last - started) / 1000
  return {
    events,
    drained,
    writeSeconds: Number(writeSeconds.toFixed(2)),
    seconds: Number(seconds.toFixed(2)),
    deliveriesPerSecond: Math.round(events / seconds),
  }
}

async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) return false
    await new Promise((r) => setTimeout(r, 20))
  }
  return true
}

/**
 * What autovacuum does on a normal server (the shared test server runs with it off): statistics,
 * and dead rows of earlier runs cleared. Taken after the warm-up has drained, they say that nothing
 * is pending, as after a quiet night; the throughput phase is then the backlog that follows, the
 * case in which a claim planned on those statistics could read every pending delivery (migration
 * 0008, test/webhooks/claim-plan.test.ts).
 */
const analyze = () =>
  sql`vacuum (analyze) package_events, webhook_configs, webhook_deliveries, webhook_attempts`.execute(db)

// Warm-up (not measured): connections, prepared statements, and statistics of tables that hold rows.
const warm = await write(500)
await until(() => warm.ids.every((id) => arrivals.has(id)), 60_000)
await analyze()

// Throughput, events spread over as many packages.
const throughput = EVENTS > 0 ? await throughputOf(EVENTS) : undefined
await analyze()

// Throughput, events concentrated on a few hot packages (each one's deliveries strictly in order).
const hot = HOT_EVENTS > 0 ? { packages: HOT_PACKAGES, ...(await throughputOf(HOT_EVENTS, HOT_PACKAGES)) } : undefined
if (hot) await analyze()

// Latency under a steady trickle.
const latencies: number[] = []
const trickle: Array<{ ids: string[]; committedAt: number }> = []
const perTick = Math.max(1, Math.round(TRICKLE_RATE / 10))
for (let tick = 0; tick < TRICKLE_SECONDS * 10; tick++) {
  const t0 = Date.now()
  trickle.push(await write(perTick))
  await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - t0))))
}
await until(() => trickle.every((b) => b.ids.every((id) => arrivals.has(id))), 60_000)
for (const b of trickle) for (const id of b.ids) if (arrivals.has(id)) latencies.push(arrivals.get(id)! - b.committedAt)
latencies.sort((a, b) => a - b)
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] ?? NaN

for (const child of children) {
  child.kill('SIGTERM')
  await new Promise((r) => child.once('exit', r))
}
for (const stop of stops) await stop()
// Retention purge: old finished deliveries with two attempts each, deleted as the worker's job deletes them.
let purge: { deliveries: number; seconds: number; deliveriesPerSecond: number } | undefined
if (PURGE > 0) {
  const at = new Date(Date.now() - (config.webhooks.retentionDays + 1) * 24 * 3600_000)
  const configId = cfg.webHookConfigID
  await sql`
    insert into webhook_deliveries (delivery_id, sub_id, config_id, event_id, event_name, package_id, sequence, occurred_at, status, attempts,
                                    next_attempt_at, give_up_at, created_at, updated_at)
    select 'dlv_purge_' || g, ${subId}, ${configId}, 'evt_purge_' || g, 'Received', 'pkg_purge_' || g, 1, ${at}::timestamptz, 'delivered', 2,
           ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz
    from generate_series(1, ${PURGE}::int) g`.execute(db)
  await sql`
    insert into webhook_attempts (attempt_id, delivery_id, sub_id, config_id, attempt_no, started_at, succeeded)
    select 'att_purge_' || g || '_' || n, 'dlv_purge_' || g, ${subId}, ${configId}, n, ${at}::timestamptz, n = 2
    from generate_series(1, ${PURGE}::int) g cross join generate_series(1, 2) n`.execute(db)
  const jobs = createJobs({
    db,
    clock: systemClock,
    ids: defaultIds,
    lockerReminderHours: 24,
    lockerExpiryDays: 7,
    retentionDays: config.webhooks.retentionDays,
    purgeBudgetMs: 600_000,
  })
  const t0 = performance.now()
  const deleted = await jobs.purge()
  const seconds = (performance.now() - t0) / 1000
  purge = {
    deliveries: deleted,
    seconds: Number(seconds.toFixed(2)),
    deliveriesPerSecond: Math.round(deleted / seconds),
  }
}

// Duplicates are legitimate only as retries of failed attempts (at least once); show why they failed.
const failedAttempts = Object.fromEntries(
  (
    await db
      .selectFrom('webhook_attempts')
      .select(['error_class', (eb) => eb.fn.countAll<number>().as('n')])
      .where('sub_id', '=', subId)
      .where('succeeded', '=', false)
      .groupBy('error_class')
      .execute()
  ).map((r) => [r.error_class ?? '?', Number(r.n)]),
)
const p95 = pct(95)
const result = {
  engine: database.engine,
  workers: database.engine === 'postgres' ? '2 processes' : '2 in-process (PGlite is single-process)',
  batch: config.webhooks.batchSize,
  concurrency: config.webhooks.concurrency,
  throughput,
  hot,
  duplicates,
  outOfOrder,
  failedAttempts,
  purge,
  latency: {
    events: latencies.length,
    rate: TRICKLE_RATE,
    p50Ms: pct(50),
    p95Ms: p95,
    p99Ms: pct(99),
    maxMs: latencies.at(-1),
  },
  targets: { deliveriesPerSecond: 1000, hotDeliveriesPerSecond: 500, p95Ms: 1000 },
  pass: {
    throughput: throughput ? throughput.deliveriesPerSecond >= 1000 : undefined,
    hot: hot ? hot.deliveriesPerSecond >= 500 && outOfOrder === 0 : undefined,
    latency: p95 <= 1000,
  },
}

// Leave a shared PostgreSQL as it was found.
if (database.engine === 'postgres') {
  await db.deleteFrom('webhook_deliveries').where('sub_id', '=', subId).execute()
  await db.deleteFrom('webhook_configs').where('sub_id', '=', subId).execute()
  await db.deleteFrom('package_events').where('sub_id', '=', subId).execute()
  await db.deleteFrom('subscriptions').where('sub_id', '=', subId).execute()
}
await admin.close()
await database.close()
receiver.close()
rmSync(dataDir, { recursive: true, force: true })
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
process.exit(0)
