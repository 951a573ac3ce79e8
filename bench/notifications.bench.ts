/**
 * Notification email throughput and latency: `npm run bench:notifications`.
 *
 * One process (the API and the notifications worker, as `mailroom serve` runs them), a local SMTP
 * server (smtp-server on 127.0.0.1, accepting everything), arrival batching off. BENCH_ARRIVALS
 * packages (default 1 000), each for a recipient of its own, added through the API
 * (BENCH_CONCURRENCY adds in flight, default 20) while the worker sends.
 *
 *   mails/s:  emails accepted by the SMTP server, from the first add to the last email accepted
 *   latency:  from each add's response to its email's acceptance by the SMTP server, p50/p95/p99
 *
 * PGlite by default (a fresh data directory); DATABASE_URL runs it on PostgreSQL (a database of its
 * own). Prints one JSON document.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { SMTPServer } from 'smtp-server'
import { buildApp } from '../src/app/app.js'
import { loadConfig } from '../src/app/config.js'
import { openRuntime } from '../src/app/runtime.js'
import { benchMailroom } from './lib.js'

const ARRIVALS = Number(process.env.BENCH_ARRIVALS ?? 1_000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20)

const accepted = new Map<string, number>()
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  closeTimeout: 500,
  onData(stream, session, cb) {
    stream.on('data', () => {})
    stream.on('end', () => {
      for (const rcpt of session.envelope.rcptTo) accepted.set(rcpt.address, performance.now())
      cb()
    })
  },
})
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
const smtpPort = (smtp.server.address() as { port: number }).port

const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-notify-'))
const config = loadConfig({
  MAILROOM_ENV: 'development',
  MAILROOM_DATA_DIR: dataDir,
  MAILROOM_SECRET: 'mailroom-notifications-bench-secret-0123456789',
  LOG_LEVEL: 'silent',
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
})
const ctx = await openRuntime(config)
const app = await buildApp(ctx, { logger: false })
await app.ready()
const created = await ctx.clients.createClient({ subscription: `bench-notify-${Date.now()}` })
const { access_token: token } = await ctx.tokens.issueToken({
  clientId: created.clientId,
  subId: created.subId,
  status: 'active',
})
const headers = { authorization: `Bearer ${token}` }
const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
  const res = await app.inject({ method, url, headers, payload: payload as never })
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json<Record<string, unknown>>()
}

await call('PUT', '/api/v1/notifications/settings', {
  enabled: true,
  arrivalBatchSeconds: 0,
  reminderAfterHours: [],
  finalNoticeAfterHours: null,
  templates: {},
})
// The location and primary site every write bench starts from (bench/lib.ts).
await benchMailroom(async (p, body) => (await call('POST', p, body)) as Record<string, string>)
const recipients: string[] = []
for (let i = 0; i < ARRIVALS; i++)
  recipients.push(
    (await call('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: `R ${i}`, email: `r${i}@bench.test` }))
      .contactId as string,
  )

const stop = ctx.notifications.start()
const added = new Map<string, number>()
const started = performance.now()
let next = 0
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < ARRIVALS) {
      const i = next++
      await call('POST', '/api/v1/packages', {
        package: { trackingNumber: `1ZBENCH${Date.now().toString(36)}${i}`, receiver: { contactId: recipients[i] } },
      })
      added.set(`r${i}@bench.test`, performance.now())
    }
  }),
)
const addsDone = performance.now()
const deadline = Date.now() + 300_000
while (accepted.size < ARRIVALS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
const last = Math.max(...accepted.values())
await stop()
ctx.notifications.close()

const latencies = [...added]
  .flatMap(([to, at]) => (accepted.has(to) ? [accepted.get(to)! - at] : []))
  .sort((a, b) => a - b)
const pct = (p: number) =>
  Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!)
console.log(
  JSON.stringify(
    {
      engine: ctx.database.engine,
      arrivals: ARRIVALS,
      sent: accepted.size,
      addsPerSec: Math.round((ARRIVALS / (addsDone - started)) * 1000),
      mailsPerSec: Math.round((accepted.size / (last - started)) * 1000),
      addToSmtpAcceptedMs: { p50: pct(50), p95: pct(95), p99: pct(99) },
    },
    null,
    2,
  ),
)
await app.close()
await ctx.database.close()
await new Promise<void>((resolve) => smtp.close(() => resolve()))
rmSync(dataDir, { recursive: true, force: true })
