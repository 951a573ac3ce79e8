import autocannon from 'autocannon'
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'

export interface Figure {
  scenario: string
  reqPerSec: number
  p50: number
  p95?: number
  p99: number
  errors: number
  non2xx: number
  ceiling?: number
  note?: string
  /** "ok — ≥ 4000 req/s" or "MISS — …": the target for this figure, checked. */
  target?: string
}

export const ROOT = path.resolve(import.meta.dirname, '..')

/** Starts a process and resolves once it prints `READY <port>` (or answers /readyz). */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  readyUrl?: (port: number) => string,
  port?: number,
  /** The checkout to run in (BENCH_VS: an earlier commit's worktree); this one by default. */
  cwd = ROOT,
): Promise<{ child: ChildProcess; port: number; stop(): Promise<void> }> {
  // BENCH_CPU_PROF=DIR: each process started here writes a V8 CPU profile there when it stops
  // (read with bench/profile-summary.ts: where a request's CPU goes, by package).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []
  const child = spawn(process.execPath, [...profile, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  const readyPort = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no READY from ${args.join(' ')}:\n${out}`)), 60_000)
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /READY (\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(Number(m[1]))
      }
    })
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}:\n${out}`)))
    if (readyUrl && port) {
      const poll = async () => {
        try {
          if ((await fetch(readyUrl(port))).ok) {
            clearTimeout(timer)
            return resolve(port)
          }
        } catch {
          // not yet
        }
        setTimeout(() => void poll(), 200)
      }
      void poll()
    }
  })
  child.stdout.resume()
  return {
    child,
    port: readyPort,
    stop: () =>
      new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', () => r()), child.kill('SIGTERM')))),
  }
}

export interface LoadOptions {
  url: string
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH'
  headers?: Record<string, string>
  body?: string
  connections?: number
  durationSeconds?: number
  /** Requests per second over all connections (autocannon's overallRate); absent: as fast as answers come. */
  overallRate?: number
  /** Per-request bodies (e.g. unique tracking numbers). */
  setupRequest?: (req: { body?: string; headers?: Record<string, string>; path?: string }) => {
    body?: string
    headers?: Record<string, string>
    path?: string
  }
}

/** Seconds of load before each measured run, not counted: the JIT's first second is not the service's speed. */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1)
/**
 * Connections of a load that names none (BENCH_CONNECTIONS, 50). One connection measures a
 * request's own CPU: no two requests share a batched read, so two releases compare on the work of
 * one request, not on how well their batching happened to fill.
 */
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)

/**
 * `around`: called just before the measured run (after the warm-up) and just after it, e.g. to read
 * a process's CPU over exactly the requests counted.
 */
export async function load(scenario: string, o: LoadOptions, around?: { start(): void; end(): void }): Promise<Figure> {
  if (WARMUP_SECONDS > 0) await run({ ...o, durationSeconds: WARMUP_SECONDS }, [])
  // autocannon reports p97.5 but not p95: keep every response time to read any percentile exactly.
  const times: number[] = []
  around?.start()
  const result = await run(o, times)
  around?.end()
  times.sort((x, y) => x - y)
  const pct = (q: number) => Number((times[Math.min(times.length - 1, Math.floor(times.length * q))] ?? 0).toFixed(1))
  return {
    scenario,
    reqPerSec: Math.round(result.requests.average),
    p50: pct(0.5),
    p95: pct(0.95),
    p99: pct(0.99),
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  }
}

function run(o: LoadOptions, times: number[]): Promise<autocannon.Result> {
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: o.url,
        method: o.method ?? 'GET',
        headers: o.headers,
        body: o.body,
        connections: o.connections ?? CONNECTIONS,
        ...(o.overallRate ? { overallRate: o.overallRate } : {}),
        duration: o.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 8),
        requests: o.setupRequest ? [{ setupRequest: o.setupRequest as never }] : undefined,
      },
      (err, res) => (err ? reject(err as Error) : resolve(res)),
    )
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime))
  })
}

export function printTable(figures: Figure[]): void {
  const rows = figures.map((f) => ({
    scenario: f.scenario,
    'req/s': f.reqPerSec,
    'p50 ms': f.p50,
    'p95 ms': f.p95 ?? '',
    'p99 ms': f.p99,
    'ratio to ceiling': f.ceiling ? (f.reqPerSec / f.ceiling).toFixed(2) : '',
    errors: f.errors + f.non2xx,
    target: f.target ?? '',
    note: f.note ?? '',
  }))
  console.table(rows)
}

/** POSTs JSON to the service under `base` and returns the answer's body. */
export function poster(base: string, headers: Record<string, string>) {
  return async (p: string, body: unknown) =>
    (await fetch(`${base}${p}`, { method: 'POST', headers, body: JSON.stringify(body) })).json() as Promise<
      Record<string, string>
    >
}

/** What every write scenario needs first: a location, its primary site, and a receiver. */
export async function benchMailroom(
  post: ReturnType<typeof poster>,
): Promise<{ locationId: string; inboundSiteId: string; contactId: string }> {
  const { locationId } = await post('/api/v1/locations', {
    name: 'Bench',
    address: { line1: '1 Main St', city: 'New York', state: 'NY', postalCode: '10001', country: 'US' },
    timezone: 'America/New_York',
  })
  const { inboundSiteId } = await post('/api/v1/inboundsites', {
    type: 'site',
    name: 'Bench HQ',
    locationId,
    primary: true,
  })
  const { contactId } = await post('/api/v1/contacts', {
    contactType: 'RECEIVER',
    name: 'Bench Receiver',
    email: 'bench@example.com',
  })
  return { locationId: locationId!, inboundSiteId: inboundSiteId!, contactId: contactId! }
}

/**
 * Name fragments many contacts share (the seed builds surnames from syllables): each request a
 * different one, so no single contact or cached plan makes the search look cheaper than it is.
 */
export const NAME_TERMS = [
  'son',
  'ton',
  'ber',
  'ner',
  'mar',
  'ley',
  'ser',
  'per',
  'hop',
  'kov',
  'lis',
  'ham',
  'gold',
  'ring',
  'stra',
  'dijk',
  'was',
  'wir',
  'knu',
  'ada',
  'gra',
  'mar',
]
