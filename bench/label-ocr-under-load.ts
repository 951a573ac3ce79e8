/**
 * Issue 27's neighbour target: while 4 clients of one subscription post label photos for OCR
 * (`decode-image?read=text`) in a loop, another subscription's GET p99 stays within 2× its value
 * without them (as issue 12 measured for barcodes, bench/photos-under-load.ts).
 *
 *   node --import tsx bench/label-ocr-under-load.ts      (BENCH_SECONDS, default 10)
 *
 * The other subscription's traffic is a probe, not a flood: two clients each sending one GET after
 * another, first without the photos (the baseline), then with the photo clients looping. The
 * photos are the committed label photos (test/decode/label/fixtures), in turn. The service runs
 * with its default image settings on PGlite in a temporary directory.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ROOT, startProcess } from './lib.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const PHOTO_CLIENTS = 4
const PROBES = 2

const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-label-load-'))
const env = {
  MAILROOM_FROM_SOURCE: '1',
  MAILROOM_DATA_DIR: dataDir,
  MAILROOM_ENV: 'development',
  DATABASE_URL: '',
  MAILROOM_SECRET: 'mailroom-bench-master-secret-0123456789abcdef',
  MAILROOM_DEMO: 'false',
  LOG_LEVEL: 'warn',
  TOKEN_FAILURE_LIMIT: '1000000',
}
// The quiet subscription's client, made before the service holds the embedded database.
const made = spawnSync(
  process.execPath,
  ['bin/mailroom.js', 'clients', 'create', '--subscription', 'quiet', '--json'],
  {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  },
)
if (made.status !== 0) throw new Error(`clients create failed: ${made.stderr}`)
const quiet = JSON.parse(made.stdout.trim().split('\n').at(-1)!) as { clientId: string; clientSecret: string }
const photos = { clientId: 'bench-labels-0001', clientSecret: 'bench-secret-0123456789abcdef0123456789abcdef' }
const port = 19080 + Math.floor(Math.random() * 1000)
const service = await startProcess(
  ['bin/mailroom.js', 'serve'],
  { ...env, PORT: String(port), MAILROOM_BOOTSTRAP_CLIENT: `${photos.clientId}:${photos.clientSecret}:photos` },
  (p) => `http://127.0.0.1:${p}/readyz`,
  port,
)

const base = `http://127.0.0.1:${port}`
async function bearer(c: { clientId: string; clientSecret: string }): Promise<Record<string, string>> {
  const basic = `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`
  const res = await fetch(`${base}/auth/api/v1/token`, { method: 'POST', headers: { authorization: basic } })
  const { access_token: token } = (await res.json()) as { access_token: string }
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
}

function quantiles(times: number[]) {
  const s = [...times].sort((a, b) => a - b)
  const at = (q: number) => Math.round(s[Math.min(s.length - 1, Math.floor(s.length * q))]! * 10) / 10
  return { requests: s.length, p50: at(0.5), p99: at(0.99), max: at(1) }
}

try {
  const quietAuth = await bearer(quiet)
  const photoAuth = await bearer(photos)
  const { packageId } = (await (
    await fetch(`${base}/api/v1/packages`, {
      method: 'POST',
      headers: quietAuth,
      body: JSON.stringify({ package: { trackingNumber: '1Z999AA10123456784' } }),
    })
  ).json()) as { packageId: string }
  const getUrl = `${base}/api/v1/packages/${packageId}?type=DETAILED`

  const probe = async () => {
    const times: number[] = []
    let errors = 0
    const end = performance.now() + SECONDS * 1000
    await Promise.all(
      Array.from({ length: PROBES }, async () => {
        while (performance.now() < end) {
          const started = performance.now()
          const res = await fetch(getUrl, { headers: quietAuth })
          await res.arrayBuffer()
          times.push(performance.now() - started)
          if (!res.ok) errors++
          await new Promise((r) => setTimeout(r, 5))
        }
      }),
    )
    return { ...quantiles(times), errors }
  }

  const fixtures = path.join(ROOT, 'test/decode/label/fixtures')
  const bodies = readdirSync(fixtures)
    .filter((f) => /\.(png|jpe?g)$/.test(f))
    .map((f) => {
      const mime = f.endsWith('.png') ? 'image/png' : 'image/jpeg'
      return JSON.stringify({
        base64: `data:${mime};base64,${readFileSync(path.join(fixtures, f)).toString('base64')}`,
      })
    })

  await probe() // warm-up, not counted
  const idle = await probe()

  let looping = true
  const read = { answered: 0, named: 0, refused429: 0, other: {} as Record<string, number>, ms: [] as number[] }
  let turn = 0
  const clients = Array.from({ length: PHOTO_CLIENTS }, async () => {
    while (looping) {
      const started = performance.now()
      const res = await fetch(`${base}/api/v1/packages/tracking/decode-image?read=text`, {
        method: 'POST',
        headers: photoAuth,
        body: bodies[turn++ % bodies.length]!,
      })
      const answer = (await res.json()) as { label?: { shipTo?: { name?: string } } }
      if (res.status === 200) {
        read.answered++
        if (answer.label?.shipTo?.name) read.named++
        read.ms.push(performance.now() - started)
      } else if (res.status === 429) {
        read.refused429++
        await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000))
      } else read.other[res.status] = (read.other[res.status] ?? 0) + 1
    }
  })
  await new Promise((r) => setTimeout(r, 3000)) // the decode threads busy before measuring
  const loaded = await probe()
  looping = false
  await Promise.all(clients)

  const ratio = loaded.p99 / idle.p99
  console.log(
    JSON.stringify(
      {
        scenario: `${PHOTO_CLIENTS} clients of one subscription posting label photos (decode-image?read=text) in a loop; another subscription's GET /api/v1/packages/{id}?type=DETAILED`,
        idle,
        withLabelPhotos: loaded,
        labelPhotos: {
          answered: read.answered,
          withAName: read.named,
          refused429: read.refused429,
          other: read.other,
          ...(read.ms.length ? { latency: quantiles(read.ms) } : {}),
        },
        target: `${loaded.p99} vs ${idle.p99} ms = ${ratio.toFixed(2)}× (target ≤ 2×): ${ratio <= 2 ? 'ok' : 'MISS'}`,
      },
      null,
      1,
    ),
  )
} finally {
  await service.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
