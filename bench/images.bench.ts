/**
 * Images on shared storage (issue 16.1): `node --import tsx bench/images.bench.ts`, part of `npm run bench`.
 *
 * With DATABASE_URL (an admin URL of a PostgreSQL server) the service runs on a database of its
 * own, created and dropped here, and keeps image bytes in it (BLOB_STORE=auto → postgres); without
 * it, on PGlite with the local directory.
 *
 *   upload + fetch: BENCH_IMAGE_CLIENTS clients (default 8), each in a loop uploading a 1 MB JPEG
 *                   (POST /api/v1/packages/images, JSON data URL) and fetching it back (GET …/:id)
 *                   for BENCH_SECONDS (default 8); pairs/s, target ≥ 100/s on PostgreSQL. Beside it,
 *                   measured in the same run: the same bytes through a bare Fastify route (HTTP
 *                   ceiling) and the same INSERT of the parts and SELECT of them straight through
 *                   pg (database ceiling); on a machine that runs the database, the service and
 *                   this client, the service does both ceilings' work for each pair ("of both").
 *   downloads:      100 concurrent downloads of one BENCH_BIG_MB (default 8) MB image, 3 rounds;
 *                   the service's RSS before, at its peak during, and after. Flat means the peak
 *                   grows by far less than 100 copies of the image (a buffered reply would hold them).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { startProcess } from './lib.js'

const admin = process.env.DATABASE_URL
const engine = admin ? 'postgres' : 'pglite'
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const CLIENTS = Number(process.env.BENCH_IMAGE_CLIENTS ?? 8)
const BIG_MB = Number(process.env.BENCH_BIG_MB ?? 8)
const PART = 256 * 1024
const SECRET = 'mailroom-bench-master-secret-0123456789abcdef'
const clientId = 'bench-client-0001'
const clientSecret = 'bench-secret-0123456789abcdef0123456789abcdef'

const jpeg = (size: number) => {
  const b = randomBytes(size)
  b.set([0xff, 0xd8, 0xff, 0xe0], 0)
  return b
}
const dataUrl = (b: Buffer) => JSON.stringify({ base64: `data:image/jpeg;base64,${b.toString('base64')}` })
/** The rate when one machine does the work of both ceilings for each pair (their costs add up). */
const both = (a: number, b: number) => 1 / (1 / a + 1 / b)
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024

async function adminQuery(text: string) {
  const c = new pg.Client({ connectionString: admin })
  await c.connect()
  try {
    await c.query(text)
  } finally {
    await c.end()
  }
}

/** `work` from `clients` loops for SECONDS; completions per second. */
async function loop(
  clients: number,
  work: () => Promise<void>,
): Promise<{ perSec: number; errors: number; p50: number; p99: number }> {
  const times: number[] = []
  let errors = 0
  const end = performance.now() + SECONDS * 1000
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const t = performance.now()
        try {
          await work()
          times.push(performance.now() - t)
        } catch {
          errors++
        }
      }
    }),
  )
  times.sort((a, b) => a - b)
  const pct = (q: number) => Number((times[Math.min(times.length - 1, Math.floor(times.length * q))] ?? 0).toFixed(1))
  return { perSec: Number((times.length / SECONDS).toFixed(1)), errors, p50: pct(0.5), p99: pct(0.99) }
}

async function drain(res: Response): Promise<number> {
  if (!res.ok) throw new Error(`HTTP ${res.status}`)
  let n = 0
  for await (const chunk of res.body!) n += (chunk as Uint8Array).byteLength
  return n
}

const dbName = `mailroom_bench_img_${process.pid}`
let dbUrl: string | undefined
if (admin) {
  await adminQuery(`drop database if exists "${dbName}" with (force)`)
  await adminQuery(`create database "${dbName}"`)
  const u = new URL(admin)
  u.pathname = `/${dbName}`
  dbUrl = u.toString()
}
const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-img-'))
const port = 19080 + Math.floor(Math.random() * 1000)
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
    MAILROOM_WEBHOOK_WORKER: 'false',
    // One subscription flat out: measure the service, not its quotas.
    RATE_LIMIT_MAX: '1000000000',
    IMAGE_UPLOADS_PER_HOUR: '100000000',
    IMAGE_UPLOAD_BYTES_PER_HOUR: String(2 ** 50),
    IMAGE_TEMP_MAX: '100000000',
    ...(dbUrl ? { DATABASE_URL: dbUrl } : {}),
  },
  (p) => `http://127.0.0.1:${p}/readyz`,
  port,
)
const ceiling = await startProcess(['--import', 'tsx', 'bench/images-ceiling.ts'], { PORT: '0' })

try {
  const base = `http://127.0.0.1:${port}`
  const { access_token: token } = (await (
    await fetch(`${base}/auth/api/v1/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    })
  ).json()) as { access_token: string }
  const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const oneMb = jpeg(1024 * 1024)
  const body = dataUrl(oneMb)
  console.log(
    `images bench: engine=${engine} (store ${engine === 'postgres' ? 'postgres' : 'local'}), ${SECONDS} s per scenario, ${CLIENTS} clients, machine shared with other work`,
  )

  const pairThrough = (post: string, get: (id: string) => string, headers: Record<string, string>) => async () => {
    const up = await fetch(post, { method: 'POST', headers, body })
    if (!up.ok) throw new Error(`upload ${up.status}`)
    const { imageId } = (await up.json()) as { imageId: string }
    if ((await drain(await fetch(get(imageId), { headers }))) !== oneMb.length) throw new Error('short read')
  }
  // Warm-up of both, uncounted.
  await pairThrough(`${base}/api/v1/packages/images`, (id) => `${base}/api/v1/packages/images/${id}`, json)()
  const cbase = `http://127.0.0.1:${ceiling.port}`
  const httpCeiling = await loop(
    CLIENTS,
    pairThrough(`${cbase}/img`, (id) => `${cbase}/img/${id}`, { 'content-type': 'application/json' }),
  )
  const service1 = await loop(
    CLIENTS,
    pairThrough(`${base}/api/v1/packages/images`, (id) => `${base}/api/v1/packages/images/${id}`, json),
  )

  let dbCeiling: Awaited<ReturnType<typeof loop>> | undefined
  if (dbUrl) {
    // The database's own work for one pair: the parts written in one transaction, then read one by one.
    const pool = new pg.Pool({ connectionString: dbUrl, max: 10 })
    let k = 0
    dbCeiling = await loop(CLIENTS, async () => {
      const key = `ceiling/${process.pid}_${++k}`
      const c = await pool.connect()
      try {
        await c.query('begin')
        for (let at = 0, part = 0; at < oneMb.length; at += PART, part++)
          await c.query('insert into image_blobs (storage_key, part, bytes) values ($1, $2, $3)', [
            key,
            part,
            oneMb.subarray(at, at + PART),
          ])
        await c.query('commit')
      } finally {
        c.release()
      }
      for (let part = 0; part < oneMb.length / PART; part++)
        await pool.query({
          text: 'select bytes from image_blobs where storage_key = $1 and part = $2',
          values: [key, part],
        })
    })
    await pool.query("delete from image_blobs where storage_key like 'ceiling/%'")
    await pool.end()
  }

  // 100 concurrent downloads of one big image, three rounds; RSS sampled every 50 ms.
  const big = jpeg(BIG_MB * 1024 * 1024)
  const up = await fetch(`${base}/api/v1/packages/images`, { method: 'POST', headers: json, body: dataUrl(big) })
  const { imageId } = (await up.json()) as { imageId: string }
  await new Promise((r) => setTimeout(r, 1000))
  const pid = service.child.pid!
  const before = rssMb(pid)
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50)
  const t0 = performance.now()
  let bytes = 0
  for (let round = 0; round < 3; round++) {
    const sizes = await Promise.all(
      Array.from({ length: 100 }, async () =>
        drain(await fetch(`${base}/api/v1/packages/images/${imageId}`, { headers: json })),
      ),
    )
    bytes += sizes.reduce((a, b) => a + b, 0)
  }
  const seconds = (performance.now() - t0) / 1000
  clearInterval(sampler)
  await new Promise((r) => setTimeout(r, 1000))
  const after = rssMb(pid)
  if (bytes !== 300 * big.length) throw new Error(`downloads were short: ${bytes} of ${300 * big.length}`)

  const rows = [
    {
      scenario: 'ceiling: bare Fastify, same 1 MB up + down',
      'pairs/s': httpCeiling.perSec,
      'p50 ms': httpCeiling.p50,
      'p99 ms': httpCeiling.p99,
      errors: httpCeiling.errors,
      note: '',
    },
    ...(dbCeiling
      ? [
          {
            scenario: 'db ceiling: the parts INSERT + SELECT through pg',
            'pairs/s': dbCeiling.perSec,
            'p50 ms': dbCeiling.p50,
            'p99 ms': dbCeiling.p99,
            errors: dbCeiling.errors,
            note: '',
          },
        ]
      : []),
    {
      scenario: 'service: upload + fetch a 1 MB JPEG',
      'pairs/s': service1.perSec,
      'p50 ms': service1.p50,
      'p99 ms': service1.p99,
      errors: service1.errors,
      note: `${(service1.perSec / httpCeiling.perSec).toFixed(2)} of HTTP ceiling${dbCeiling ? `, ${(service1.perSec / dbCeiling.perSec).toFixed(2)} of db ceiling, ${(service1.perSec / both(httpCeiling.perSec, dbCeiling.perSec)).toFixed(2)} of both (${both(httpCeiling.perSec, dbCeiling.perSec).toFixed(1)}/s)` : ''}${engine === 'postgres' ? ` — ${service1.perSec >= 100 && service1.errors === 0 ? 'ok' : 'MISS'} ≥ 100/s` : ''}`,
    },
  ]
  console.table(rows)
  const growth = peak - before
  const downloads = {
    imageMb: BIG_MB,
    concurrent: 100,
    rounds: 3,
    seconds: Number(seconds.toFixed(1)),
    rssMb: { before: Math.round(before), peak: Math.round(peak), after: Math.round(after) },
    peakGrowthMb: Math.round(growth),
    bufferedWouldHoldMb: 100 * BIG_MB,
  }
  console.log(
    `100 concurrent downloads of a ${BIG_MB} MB image ×3 (${(bytes / 1024 / 1024 / seconds).toFixed(0)} MB/s): RSS ${downloads.rssMb.before} → peak ${downloads.rssMb.peak} → ${downloads.rssMb.after} MB; peak growth ${downloads.peakGrowthMb} MB against ${downloads.bufferedWouldHoldMb} MB that 100 buffered copies would hold — ${growth < 0.25 * 100 * BIG_MB ? 'ok (flat)' : 'MISS'}`,
  )
  console.log(JSON.stringify({ engine, uploadFetch: { service: service1, httpCeiling, dbCeiling }, downloads }))
} finally {
  await service.stop()
  await ceiling.stop()
  rmSync(dataDir, { recursive: true, force: true })
  if (admin) await adminQuery(`drop database if exists "${dbName}" with (force)`)
}
