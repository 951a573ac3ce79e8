import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { bigLabelPng } from '../test/decode/image/support/big-png.js'
import { startProcess } from './lib.js'

/**
 * Issue 12's photo scenario: while 4 clients decode 50-megapixel photos in a loop, `/healthz` p99
 * ≤ 50 ms and an authenticated GET's p99 at most 2× its value without them.
 *
 * Ordinary traffic is a probe, not a flood: a few clients each sending one request after another
 * (as front-desk screens do), so the figure is the latency a request meets, not a queue the bench
 * built. The same probe runs without photos (the baseline), then with the photo clients looping.
 * The service runs with its default image settings on PGlite in a temporary directory.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const PHOTO_CLIENTS = 4
const PROBES_PER_ROUTE = 2
// 8660×5773: just under the default 50-megapixel cap, the size of a 50 MP phone photo.
const WIDTH = 8660
const HEIGHT = 5773

interface Latency {
  requests: number
  p50: number
  p99: number
  max: number
  errors: number
}

export async function photosUnderLoad() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-photos-'))
  const port = 19080 + Math.floor(Math.random() * 1000)
  const clientId = 'bench-photos-0001'
  const clientSecret = 'bench-secret-0123456789abcdef0123456789abcdef'
  const service = await startProcess(
    ['bin/mailroom.js', 'serve'],
    {
      MAILROOM_FROM_SOURCE: '1',
      PORT: String(port),
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_ENV: 'development',
      DATABASE_URL: '',
      MAILROOM_SECRET: 'mailroom-bench-master-secret-0123456789abcdef',
      MAILROOM_DEMO: 'false',
      LOG_LEVEL: 'warn',
      MAILROOM_BOOTSTRAP_CLIENT: `${clientId}:${clientSecret}:photos`,
      TOKEN_FAILURE_LIMIT: '1000000',
    },
    (p) => `http://127.0.0.1:${p}/readyz`,
    port,
  )
  try {
    const base = `http://127.0.0.1:${port}`
    const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`
    const { access_token: token } = (await (
      await fetch(`${base}/auth/api/v1/token`, { method: 'POST', headers: { authorization: basic } })
    ).json()) as { access_token: string }
    const bearer = { authorization: `Bearer ${token}` }
    const json = { ...bearer, 'content-type': 'application/json' }
    const { packageId } = (await (
      await fetch(`${base}/api/v1/packages`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ package: { trackingNumber: '1Z999AA10123456784' } }),
      })
    ).json()) as { packageId: string }
    const routes: Array<[string, Record<string, string>]> = [
      ['/healthz', {}],
      ['/api/v1/session', bearer],
      [`/api/v1/packages/${packageId}?type=DETAILED`, bearer],
    ]
    const png = bigLabelPng(WIDTH, HEIGHT)
    const photo = JSON.stringify({ base64: `data:image/png;base64,${png.toString('base64')}` })

    const probe = async (): Promise<Record<string, Latency>> => {
      const out: Record<string, Latency> = {}
      await Promise.all(
        routes.map(async ([route, headers]) => {
          const times: number[] = []
          let errors = 0
          const end = performance.now() + SECONDS * 1000
          await Promise.all(
            Array.from({ length: PROBES_PER_ROUTE }, async () => {
              while (performance.now() < end) {
                const started = performance.now()
                const res = await fetch(`${base}${route}`, { headers })
                await res.arrayBuffer()
                times.push(performance.now() - started)
                if (!res.ok) errors++
                await new Promise((r) => setTimeout(r, 5))
              }
            }),
          )
          times.sort((a, b) => a - b)
          const at = (q: number) =>
            Math.round(times[Math.min(times.length - 1, Math.floor(times.length * q))]! * 10) / 10
          out[route.replace(packageId, '{id}')] = {
            requests: times.length,
            p50: at(0.5),
            p99: at(0.99),
            max: at(1),
            errors,
          }
        }),
      )
      return out
    }

    await probe() // warm-up, not counted
    const without = await probe()

    let looping = true
    const photos = { decoded: 0, refused429: 0, other: {} as Record<string, number>, decodeMs: [] as number[] }
    const clients = Array.from({ length: PHOTO_CLIENTS }, async () => {
      while (looping) {
        const started = performance.now()
        const res = await fetch(`${base}/api/v1/packages/tracking/decode-image`, {
          method: 'POST',
          headers: json,
          body: photo,
        })
        await res.arrayBuffer()
        if (res.status === 200) {
          photos.decoded++
          photos.decodeMs.push(performance.now() - started)
        } else if (res.status === 429) {
          photos.refused429++
          await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000))
        } else {
          photos.other[res.status] = (photos.other[res.status] ?? 0) + 1
        }
      }
    })
    await new Promise((r) => setTimeout(r, 3000)) // the decode threads busy before measuring
    const withPhotos = await probe()
    looping = false
    await Promise.all(clients)

    const get = '/api/v1/packages/{id}?type=DETAILED'
    const session = '/api/v1/session'
    photos.decodeMs.sort((a, b) => a - b)
    return {
      scenario: `${PHOTO_CLIENTS} clients decoding ${((WIDTH * HEIGHT) / 1e6).toFixed(1)} MP PNGs (${Math.round(png.length / 1024)} KB) in a loop, default image settings`,
      without,
      withPhotos,
      photos: {
        decoded: photos.decoded,
        refused429: photos.refused429,
        other: photos.other,
        decodeMedianMs: Math.round(photos.decodeMs[Math.floor(photos.decodeMs.length / 2)] ?? 0),
      },
      targets: {
        healthzP99: `${withPhotos['/healthz']!.p99} ms (target ≤ 50): ${withPhotos['/healthz']!.p99 <= 50 ? 'ok' : 'MISS'}`,
        sessionP99: `${withPhotos[session]!.p99} vs ${without[session]!.p99} ms = ${(withPhotos[session]!.p99 / without[session]!.p99).toFixed(2)}× (target ≤ 2×): ${withPhotos[session]!.p99 <= 2 * without[session]!.p99 ? 'ok' : 'MISS'}`,
        getP99: `${withPhotos[get]!.p99} vs ${without[get]!.p99} ms = ${(withPhotos[get]!.p99 / without[get]!.p99).toFixed(2)}× (target ≤ 2×): ${withPhotos[get]!.p99 <= 2 * without[get]!.p99 ? 'ok' : 'MISS'}`,
      },
    }
  } finally {
    await service.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await photosUnderLoad(), null, 1))
