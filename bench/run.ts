import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { load, printTable, startProcess, type Figure } from './lib.js'

/**
 * `npm run bench`: starts the service (PostgreSQL when DATABASE_URL is set, else PGlite in a
 * temporary data dir) and a bare Fastify ceiling, each in its own process, then loads both with
 * autocannon from this process. Every figure is printed beside the ceiling of the same run.
 */
const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-bench-'))
const clientId = 'bench-client-0001'
const clientSecret = 'bench-secret-0123456789abcdef0123456789abcdef'
const servicePort = 18080 + Math.floor(Math.random() * 1000)

const ceiling = await startProcess(['--import', 'tsx', 'bench/ceiling.ts'], {})
const service = await startProcess(['bin/mailroom.js', 'serve'], {
  MAILROOM_FROM_SOURCE: '1',
  PORT: String(servicePort),
  MAILROOM_DATA_DIR: dataDir,
  MAILROOM_ENV: 'development',
  MAILROOM_DEMO: 'false',
  LOG_LEVEL: 'warn',
  MAILROOM_BOOTSTRAP_CLIENT: `${clientId}:${clientSecret}:bench`,
  // The token scenario is many successful logins from one address: keep failures the only thing limited.
  TOKEN_FAILURE_LIMIT: '1000000',
}, (p) => `http://127.0.0.1:${p}/readyz`, servicePort)

const base = `http://127.0.0.1:${servicePort}`
const basicAuth = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`
const figures: Figure[] = []
try {
  const { access_token: token } = (await (await fetch(`${base}/auth/api/v1/token`, { method: 'POST', headers: { authorization: basicAuth } })).json()) as { access_token: string }
  const bearer = { authorization: `Bearer ${token}` }
  const engine = process.env.DATABASE_URL ? 'postgres' : 'pglite'
  console.log(`mailroom bench: engine=${engine}, ${process.env.BENCH_SECONDS ?? 8} s per scenario, 50 connections`)

  const ceil = await load('ceiling: bare Fastify GET', { url: `http://127.0.0.1:${ceiling.port}/` })
  figures.push(ceil)
  const scenarios: Array<[string, Parameters<typeof load>[1]]> = [
    ['token issuance (POST /auth/api/v1/token)', { url: `${base}/auth/api/v1/token`, method: 'POST', headers: { authorization: basicAuth } }],
    ['authenticated GET /api/v1/session', { url: `${base}/api/v1/session`, headers: bearer }],
  ]
  for (const [name, opts] of scenarios) figures.push({ ...(await load(name, opts)), ceiling: ceil.reqPerSec })

  // Receiving: a package to read, then the write paths with unique numbers per request.
  const json = { ...bearer, 'content-type': 'application/json' }
  const post = async (path: string, body: unknown) => (await fetch(`${base}${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) })).json() as Promise<Record<string, string>>
  const { locationId } = await post('/api/v1/locations', { name: 'Bench', address: { line1: '1 Main St', city: 'New York', state: 'NY', postalCode: '10001', country: 'US' }, timezone: 'America/New_York' })
  const { inboundSiteId } = await post('/api/v1/inboundsites', { type: 'site', name: 'Bench HQ', locationId, primary: true })
  const { contactId } = await post('/api/v1/contacts', { contactType: 'RECEIVER', name: 'Bench Receiver', email: 'bench@example.com' })
  const { packageId } = await post('/api/v1/packages', { package: { trackingNumber: '1Z999AA10123456784', receiver: { contactId }, carrier: { carrierId: 'UPS' } }, lastActivity: { status: 'RECEIVED', location: { inboundSiteId } } })
  // Updates spread over many packages, as at a real front desk (one package is rarely edited twice at once).
  const pool: string[] = []
  for (let i = 0; i < 200; i++) pool.push((await post('/api/v1/packages', { package: { trackingNumber: `POOL${process.pid}X${i}` }, lastActivity: { status: 'RECEIVED', location: { inboundSiteId } } })).packageId!)
  let n = 0
  const unique = () => `BENCH${process.pid}${(++n).toString(36).toUpperCase().padStart(8, '0')}`
  const receiving: Array<[string, Parameters<typeof load>[1]]> = [
    ['add package (POST /api/v1/packages)', {
      url: `${base}/api/v1/packages`, method: 'POST', headers: json,
      setupRequest: (req) => ({ ...req, body: JSON.stringify({ package: { trackingNumber: unique(), receiver: { contactId }, carrier: { carrierId: 'UPS' } }, lastActivity: { status: 'RECEIVED', location: { inboundSiteId } } }) }),
    }],
    ['get package DETAILED', { url: `${base}/api/v1/packages/${packageId}?type=DETAILED`, headers: bearer }],
    ['get by tracking number', { url: `${base}/api/v1/packages/tracking/1Z999AA10123456784`, headers: bearer }],
    ['update with an activity (PUT)', {
      url: `${base}/api/v1/packages/${packageId}`, method: 'PUT', headers: json,
      setupRequest: (req) => ({ ...req, path: `/api/v1/packages/${pool[n % pool.length]}`, body: JSON.stringify({ package: { comment: unique() }, lastActivity: { status: 'READY_FOR_PICKUP' } }) }),
    }],
    ['decode a 1D scan (GET decode)', { url: `${base}/api/v1/packages/tracking/decode?trackingNumber=1Z999AA10123456784`, headers: bearer }],
  ]
  for (const [name, opts] of receiving) figures.push({ ...(await load(name, opts)), ceiling: ceil.reqPerSec })
  printTable(figures)
  console.log(JSON.stringify({ engine, figures }))
} finally {
  await service.stop()
  await ceiling.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
