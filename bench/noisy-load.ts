import autocannon from 'autocannon'
import type { Figure } from './lib.js'

/** The noisy neighbour's loads of bench/neighbour.bench.ts, each for `seconds` + 6 s. */
const seconds = Number(process.env.BENCH_SECONDS ?? 10)

/**
 * NEIGHBOUR_POLITE=1: the neighbour's clients wait out each refusal's Retry-After, as a client that
 * follows the contract does, instead of resending at once (autocannon). The difference between the two
 * runs is what the flood of refusals itself costs the quiet tenant.
 */
const polite = process.env.NEIGHBOUR_POLITE === '1'

/** The neighbour's load: how many answers of each status, and the latency of the ones that did the work (2xx). */
export function noisyLoad(what: string, o: autocannon.Options): Promise<Figure> {
  return polite ? politeLoad(what, o) : floodLoad(what, o)
}

async function politeLoad(what: string, o: autocannon.Options): Promise<Figure> {
  const statuses = new Map<number, number>()
  const worked: number[] = []
  const until = Date.now() + (seconds + 6) * 1000
  const target = new URL(o.url)
  const setup = o.requests?.[0]?.setupRequest as ((r: Record<string, unknown>) => { path?: string }) | undefined
  let sent = 0
  await Promise.all(
    Array.from({ length: o.connections ?? 1 }, async () => {
      while (Date.now() < until) {
        const path = setup?.({})?.path ?? target.pathname
        const started = performance.now()
        const res = await fetch(new URL(path, target), {
          method: o.method ?? 'GET',
          headers: o.headers as Record<string, string>,
          body: o.body as string | undefined,
        })
        await res.arrayBuffer()
        sent++
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        if (res.status < 300) worked.push(performance.now() - started)
        const wait = Number(res.headers.get('retry-after') ?? 0)
        if (res.status >= 400 && wait > 0) await new Promise((r) => setTimeout(r, wait * 1000))
      }
    }),
  )
  worked.sort((x, y) => x - y)
  const pct = (q: number) =>
    Number((worked[Math.min(worked.length - 1, Math.floor(worked.length * q))] ?? 0).toFixed(1))
  return {
    scenario: `noisy (honours Retry-After): ${what} (${o.connections} conn.)`,
    reqPerSec: Math.round(sent / (seconds + 6)),
    p50: pct(0.5),
    p95: pct(0.95),
    p99: pct(0.99),
    errors: 0,
    non2xx: 0,
    note: `answers by status: ${[...statuses]
      .sort()
      .map(([st, n]) => `${st}: ${n}`)
      .join(', ')}; latencies of the 2xx`,
  }
}

function floodLoad(what: string, o: autocannon.Options): Promise<Figure> {
  return new Promise((resolve, reject) => {
    const statuses = new Map<number, number>()
    const worked: number[] = []
    const instance = autocannon({ ...o, duration: seconds + 6 }, (err, res) => {
      if (err) return reject(err as Error)
      worked.sort((x, y) => x - y)
      const pct = (q: number) =>
        Number((worked[Math.min(worked.length - 1, Math.floor(worked.length * q))] ?? 0).toFixed(1))
      resolve({
        scenario: `noisy: ${what} (${o.connections} conn.)`,
        reqPerSec: Math.round(res.requests.average),
        p50: pct(0.5),
        p95: pct(0.95),
        p99: pct(0.99),
        errors: res.errors + res.timeouts,
        non2xx: 0,
        note: `answers by status: ${[...statuses]
          .sort()
          .map(([s, n]) => `${s}: ${n}`)
          .join(', ')}; latencies of the 2xx`,
      })
    })
    instance.on('response', (_c, status, _b, ms) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
      if (status < 300) worked.push(ms)
    })
  })
}
