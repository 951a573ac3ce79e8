import { checkClientCredentials } from '../src/access/model/credential-check.js'
import { MemoryFailureLimiter } from '../src/access/model/failure-limiter.js'
import type { ClientsService } from '../src/access/clients-service.js'
import { ManualClock } from '../src/platform/kit/clock.js'

/**
 * `node --import tsx bench/failure-limiter.bench.ts`: the cost of one failed credential check
 * once a flood of distinct addresses has filled the limiter (issue 14 item 10). The clients
 * service is a stub that knows no client, so only the limiter's work is timed.
 */
const FLOOD = Number(process.env.FLOOD ?? 100_000)
const SAMPLES = Number(process.env.SAMPLES ?? 2_000)
const clock = new ManualClock('2026-01-01T00:00:00Z')
const limiter = new MemoryFailureLimiter(clock, { limit: 10, windowSeconds: 300 })
const clients = { authenticate: async () => undefined } as unknown as ClientsService
const deps = { clients, limiter }
const ip = (i: number) => `${10 + ((i >> 24) & 0xff)}.${(i >> 16) & 0xff}.${(i >> 8) & 0xff}.${i & 0xff}`

const t0 = performance.now()
for (let i = 0; i < FLOOD; i++)
  await checkClientCredentials(deps, { clientId: `mrc_flood${i}`, clientSecret: 'x' }, ip(i))
const floodMs = performance.now() - t0

const times: number[] = []
for (let i = 0; i < SAMPLES; i++) {
  const start = performance.now()
  await checkClientCredentials(deps, { clientId: `mrc_after${i}`, clientSecret: 'x' }, ip(FLOOD + i))
  times.push(performance.now() - start)
}
times.sort((a, b) => a - b)
const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(4)
const heap = (process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)
console.log(`flood of ${FLOOD} addresses: ${((floodMs / FLOOD) * 1000).toFixed(1)} µs per failure on average`)
console.log(
  `after the flood, ${SAMPLES} failures from new addresses: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms; heap ${heap} MiB`,
)
