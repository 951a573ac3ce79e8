/**
 * The directory's targets (issue 28): `npm run bench:directory`.
 *
 *   SCIM:  a create (POST /scim/v2/Users) then a deactivation (PATCH active false) of a new user,
 *          one after another over real HTTP, BENCH_SCIM round trips (default 300): p50/p95/p99 of
 *          each pair. Target: p99 ≤ 50 ms.
 *   LDAP:  a private slapd seeded with BENCH_LDAP_PEOPLE people (default 50,000), a first sync, then
 *          an unchanged re-sync: their seconds, and the contact rows the re-sync wrote. Target: the
 *          first ≤ 60 s, the re-sync writes nothing.
 *
 * PGlite by default (a fresh data directory); DATABASE_URL runs it on PostgreSQL. Prints one JSON document.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { buildApp } from '../src/app/app.js'
import { loadConfig } from '../src/app/config.js'
import { openRuntime } from '../src/app/runtime.js'
import { seedPeople, startSlapd } from '../test/directory/slapd.js'
import { countWrites } from '../test/support/write-counter.js'

const SCIM_ROUNDS = Number(process.env.BENCH_SCIM ?? 300)
const PEOPLE = Number(process.env.BENCH_LDAP_PEOPLE ?? 50_000)

const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-directory-'))
const config = loadConfig({
  MAILROOM_ENV: 'development',
  MAILROOM_DATA_DIR: dataDir,
  MAILROOM_SECRET: 'mailroom-directory-bench-secret-0123456789',
  LOG_LEVEL: 'silent',
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
})
const ctx = await openRuntime(config)
const app = await buildApp(ctx, { logger: false })
const base = await app.listen({ host: '127.0.0.1', port: 0 })
const created = await ctx.clients.createClient({ subscription: `bench-directory-${Date.now()}` })
const { access_token: token } = await ctx.tokens.issueToken({
  clientId: created.clientId,
  subId: created.subId,
  status: 'active',
})
const api = async (method: string, url: string, body?: unknown) => {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
  return (await res.json()) as Record<string, unknown>
}

// SCIM round trips.
const scimToken = (await api('POST', '/api/v1/directory/scim/tokens', { name: 'bench' })).token as string
const scim = async (method: string, url: string, body: unknown) => {
  const res = await fetch(`${base}/scim/v2${url}`, {
    method,
    headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify(body),
  })
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
  return (await res.json()) as Record<string, unknown>
}
const rounds: number[] = []
for (let i = 0; i < SCIM_ROUNDS; i++) {
  const t0 = performance.now()
  const user = await scim('POST', '/Users', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: `bench${i}@example.com`,
    name: { givenName: 'Bench', familyName: String(i) },
    emails: [{ value: `bench${i}@example.com`, primary: true, type: 'work' }],
    externalId: `okta-${i}`,
    active: true,
  })
  await scim('PATCH', `/Users/${String(user.id)}`, {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
    Operations: [{ op: 'replace', value: { active: false } }],
  })
  rounds.push(performance.now() - t0)
}
rounds.sort((a, b) => a - b)
const pct = (xs: number[], p: number) =>
  Math.round(xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]! * 10) / 10

// LDAP sync of a large directory.
const slapd = await startSlapd(seedPeople(PEOPLE))
await api('PUT', '/api/v1/directory/ldap', {
  url: slapd.url,
  bindDn: slapd.readerDn,
  bindPassword: slapd.readerPassword,
  baseDn: slapd.peopleDn,
  filter: '(objectClass=inetOrgPerson)',
})
let t0 = performance.now()
const first = await api('POST', '/api/v1/directory/ldap/run', {})
const firstSeconds = (performance.now() - t0) / 1000
const writes = await countWrites(ctx.db)
t0 = performance.now()
const second = await api('POST', '/api/v1/directory/ldap/run', {})
const secondSeconds = (performance.now() - t0) / 1000
const written = await writes.perTable()

console.log(
  JSON.stringify(
    {
      engine: ctx.database.engine,
      scim: {
        rounds: SCIM_ROUNDS,
        createThenPatchMs: { p50: pct(rounds, 50), p95: pct(rounds, 95), p99: pct(rounds, 99) },
      },
      ldap: {
        people: PEOPLE,
        firstSync: { seconds: Math.round(firstSeconds * 10) / 10, created: first.created },
        unchangedResync: {
          seconds: Math.round(secondSeconds * 10) / 10,
          unchanged: second.unchanged,
          contactRowsWritten: written.contacts ?? 0,
          rowsWritten: written,
        },
      },
    },
    null,
    2,
  ),
)
await slapd.stop()
await app.close()
await ctx.database.close()
rmSync(dataDir, { recursive: true, force: true })
