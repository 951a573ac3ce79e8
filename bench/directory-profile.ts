/**
 * Where a SCIM create + patch spends its time (issue 28's 50 ms p99): `npm run bench:directory-profile`.
 *
 * The same round trips as bench/directory.bench.ts over real HTTP on PGlite (or PostgreSQL:
 * DATABASE_URL), with every statement timed where the driver runs it (wrapped here only), grouped
 * by its text. Prints, per round trip: the total, the time in SQL, the rest (HTTP, validation,
 * token check, JSON), this process's CPU; the same for the slowest twentieth of the rounds (what a
 * p99 is made of; wall time beyond SQL and CPU is time spent waiting for a core); per statement:
 * count per round, mean and share. BENCH_NO_WORDS_TRIGGER=1 runs it once more
 * with the contacts' name-words trigger (migration 0054) disabled, to measure that trigger's share.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { sql } from 'kysely'
import { buildApp } from '../src/app/app.js'
import { loadConfig } from '../src/app/config.js'
import { openRuntime } from '../src/app/runtime.js'

const ROUNDS = Number(process.env.BENCH_SCIM ?? 200)
const WARMUP = 30

const timings = new Map<string, number[]>()
let recording = false
/** SQL time of the round being measured (all its statements, as the client waits for them). */
let roundSql = 0
/** Of which writes (each its own commit: a WAL flush on PostgreSQL). */
let roundWrites = 0
/** A driver's query method: a promise, or nothing when node-postgres is given a callback. */
type Fn = (this: unknown, ...args: unknown[]) => unknown
const onPostgres = Boolean(process.env.DATABASE_URL)

function note(statement: unknown, ms: number): void {
  if (!recording) return
  roundSql += ms
  const text = typeof statement === 'string' ? statement : String((statement as { text?: string })?.text)
  if (/^\s*(insert|update|delete)\b/i.test(text)) roundWrites += ms
  const key = text
    .replace(/\s+/g, ' ')
    .replace(/^select .*? from/, 'select … from')
    .replace(/^insert into "(\w+)" .*/, 'insert into $1 …')
    .replace(/^update "(\w+)" set .*? where/, 'update $1 set … where')
    .slice(0, 300)
  const list = timings.get(key) ?? []
  list.push(ms)
  timings.set(key, list)
}

// Every statement timed where the driver runs it: PGlite's query and exec, or node-postgres's
// Client.query on PostgreSQL (DATABASE_URL): there the time includes the round trip to the server.
const targets: Array<[object, string]> = onPostgres
  ? [[pg.Client.prototype, 'query']]
  : [
      [PGlite.prototype, 'query'],
      [PGlite.prototype, 'exec'],
    ]
for (const [start, method] of targets) {
  let proto: object | null = start
  while (proto && !Object.prototype.hasOwnProperty.call(proto, method)) proto = Object.getPrototypeOf(proto) as object
  if (!proto) throw new Error(`no ${method} to time`)
  const original = (proto as Record<string, Fn>)[method]!
  ;(proto as Record<string, Fn>)[method] = function (this: unknown, ...args: unknown[]) {
    const t0 = performance.now()
    const out = original.apply(this, args)
    if (out instanceof Promise)
      void out.then(
        () => note(args[0], performance.now() - t0),
        () => note(args[0], performance.now() - t0),
      )
    return out
  }
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-profile-directory-'))
const config = loadConfig({
  MAILROOM_ENV: 'development',
  MAILROOM_DATA_DIR: dataDir,
  MAILROOM_SECRET: 'mailroom-directory-bench-secret-0123456789',
  LOG_LEVEL: 'silent',
  ...(onPostgres ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
})
const ctx = await openRuntime(config)
const app = await buildApp(ctx, { logger: false })
const base = await app.listen({ host: '127.0.0.1', port: 0 })
const created = await ctx.clients.createClient({ subscription: `profile-directory-${Date.now()}` })
const scimToken = (await ctx.directory.tokens.createToken(created.subId, 'profile')).token
const scim = async (method: string, url: string, body: unknown) => {
  const res = await fetch(`${base}/scim/v2${url}`, {
    method,
    headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify(body),
  })
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
  return (await res.json()) as Record<string, unknown>
}

let n = 0
/** Per round: its wall time, its SQL time, and this process's CPU time (server and client both). */
interface Round {
  ms: number
  sqlMs: number
  writeMs: number
  cpuMs: number
}

async function round(): Promise<Round> {
  const i = n++
  roundSql = 0
  roundWrites = 0
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const user = await scim('POST', '/Users', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: `profile${i}@example.com`,
    name: { givenName: 'Profile', familyName: `Person${i}` },
    emails: [{ value: `profile${i}@example.com`, primary: true, type: 'work' }],
    externalId: `okta-${i}`,
    active: true,
  })
  await scim('PATCH', `/Users/${String(user.id)}`, {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
    Operations: [{ op: 'replace', value: { active: false } }],
  })
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  return { ms, sqlMs: roundSql, writeMs: roundWrites, cpuMs: (cpu.user + cpu.system) / 1000 }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10
}
const r1 = (x: number) => Math.round(x * 100) / 100

async function measure(label: string) {
  for (let i = 0; i < WARMUP; i++) await round()
  timings.clear()
  recording = true
  const all: Round[] = []
  for (let i = 0; i < ROUNDS; i++) all.push(await round())
  recording = false
  const rounds = all.map((r) => r.ms)
  const total = rounds.reduce((a, b) => a + b, 0)
  // The slowest twentieth: where their time went (SQL, this process's CPU, neither: waiting to run).
  const slow = [...all].sort((a, b) => b.ms - a.ms).slice(0, Math.max(1, Math.ceil(all.length / 20)))
  const mean = (xs: Round[], k: keyof Round) => r1(xs.reduce((a, x) => a + x[k], 0) / xs.length)
  const statements = [...timings.entries()]
    .map(([text, xs]) => ({
      text,
      perRound: r1(xs.length / ROUNDS),
      meanMs: r1(xs.reduce((a, b) => a + b, 0) / xs.length),
      totalMs: xs.reduce((a, b) => a + b, 0),
    }))
    .sort((a, b) => b.totalMs - a.totalMs)
  const sqlMs = statements.reduce((a, s) => a + s.totalMs, 0)
  return {
    label,
    rounds: ROUNDS,
    createThenPatchMs: { p50: pct(rounds, 50), p95: pct(rounds, 95), p99: pct(rounds, 99), mean: r1(total / ROUNDS) },
    perRoundMs: {
      sql: r1(sqlMs / ROUNDS),
      sqlWrites: mean(all, 'writeMs'),
      rest: r1((total - sqlMs) / ROUNDS),
      cpu: mean(all, 'cpuMs'),
    },
    slowestTwentiethMs: {
      wall: mean(slow, 'ms'),
      sql: mean(slow, 'sqlMs'),
      sqlWrites: mean(slow, 'writeMs'),
      cpu: mean(slow, 'cpuMs'),
    },
    statements: statements.map((s) => ({
      ...s,
      totalMs: undefined,
      sharePct: Math.round((s.totalMs / total) * 1000) / 10,
    })),
  }
}

const out: unknown[] = [{ engine: ctx.database.engine, loadavg: (await import('node:os')).loadavg() }]
out.push(await measure('as is'))
if (process.env.BENCH_NO_WORDS_TRIGGER) {
  // On PostgreSQL this is the database DATABASE_URL names: the trigger is back whatever happens.
  await sql`alter table contacts disable trigger contacts_name_words`.execute(ctx.db)
  try {
    out.push(await measure('name-words trigger disabled'))
  } finally {
    await sql`alter table contacts enable trigger contacts_name_words`.execute(ctx.db)
  }
}
console.log(JSON.stringify(out, null, 2))
await app.close()
await ctx.database.close()
rmSync(dataDir, { recursive: true, force: true })
