import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_SECRET } from '../../support/build-test-app.js'
import { apiCaller, startService, type RunningService } from '../../support/spawn-service.js'
import { createTestDatabase } from '../../support/test-db.js'
import { TestSmtpServer } from '../../notifications/support/smtp.js'
import { Receiver } from '../../webhooks/support/receiver.js'
import { unheldWork } from '../../restore/unheld-work.js'
import { openDatabase } from '../../../src/platform/db/database.js'

// docs/backup.md's PostgreSQL recipe, run as written: pg_dump of a serving database, pg_restore into
// a new one, `mailroom restore --mark`, and the restored service holds the old pending work until
// the operator decides, per kind.
const BIN = path.resolve(import.meta.dirname, '../../../bin/mailroom.js')
const CLIENT_ID = 'pg-backup-client-01'
const CLIENT_SECRET = 'pg-backup-secret-0123456789abcdef-0123456789ab'
const CONTACTS = 3
const adminUrl = process.env.TEST_DATABASE_URL

function cli(args: string[], env: Record<string, string>) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('exit', (status) => resolve({ status, stdout, stderr }))
  })
}

async function admin(query: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl })
  await c.connect()
  try {
    await c.query(query)
  } finally {
    await c.end()
  }
}

describe.runIf(!!adminUrl)('pg_dump, pg_restore and mailroom restore --mark (PostgreSQL)', () => {
  const smtp = new TestSmtpServer()
  const rx = new Receiver()
  let dir: string
  let sourceUrl: string
  let dropSource: () => Promise<void>
  const targetName = `mailroom_restored_${process.pid}`
  let targetUrl: string
  const running: RunningService[] = []
  let base: Record<string, string>

  beforeAll(async () => {
    await smtp.start()
    await rx.start()
    dir = mkdtempSync(path.join(tmpdir(), 'mailroom-pgbk-'))
    const db = await createTestDatabase({ migrate: false })
    await db.handle.close()
    sourceUrl = db.url!
    dropSource = () => db.drop()
    const u = new URL(adminUrl!)
    u.pathname = `/${targetName}`
    targetUrl = u.toString()
    base = {
      MAILROOM_ENV: 'development',
      MAILROOM_DEMO: 'false',
      MAILROOM_SECRET: TEST_SECRET,
      MAILROOM_DATA_DIR: dir,
      MAILROOM_BOOTSTRAP_CLIENT: `${CLIENT_ID}:${CLIENT_SECRET}:pg-backup`,
      MAILROOM_WEBHOOK_ALLOW_HTTP: 'true',
      MAILROOM_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      WEBHOOK_RETRY_BASE_SECONDS: '3600',
      SMTP_URL: smtp.url,
      LOG_LEVEL: 'warn',
    }
  })
  afterAll(async () => {
    for (const s of running) await s.stop('SIGKILL')
    await smtp.close()
    await rx.close()
    await dropSource?.()
    await admin(`drop database if exists ${targetName} with (force)`)
    rmSync(dir, { recursive: true, force: true })
  })

  const client = (baseUrl: string) => apiCaller(baseUrl, CLIENT_ID, CLIENT_SECRET)

  it('holds what was pending in the dump until the operator resends or drops it', async () => {
    rx.respond = () => ({ status: 503 })
    const original = await startService({ ...base, DATABASE_URL: sourceUrl })
    running.push(original)
    const call = await client(original.baseUrl)
    await call('PUT', '/api/v1/notifications/settings', {
      enabled: true,
      arrivalBatchSeconds: 3600,
      reminderAfterHours: [],
      finalNoticeAfterHours: null,
      templates: {},
    })
    await call('POST', '/webhooks/tracking/api/v1/webhookConfig', {
      name: 'ERP',
      type: 'tracking',
      events: ['Acceptance'],
      url: `http://127.0.0.1:${rx.port}/hook`,
      timeOut: 5,
      authParams: { authType: 'none' },
    })
    for (let i = 0; i < CONTACTS; i++) {
      const contactId = (
        await call('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: `P${i}`, email: `p${i}@example.com` })
      ).contactId as string
      await call('POST', '/api/v1/packages', {
        package: { trackingNumber: `1ZPGBACKUP0${i}`, receiver: { contactId } },
      })
    }
    await expect.poll(() => rx.requests.length, { timeout: 30_000, interval: 200 }).toBe(CONTACTS)
    // The arrivals became emails (their batch closes in an hour): pending notifications, not events.
    const pending = async () => ((await call('GET', '/api/v1/notifications')).notifications as unknown[]).length
    await expect.poll(pending, { timeout: 30_000, interval: 200 }).toBe(CONTACTS)

    // The embedded commands point to the recipe on PostgreSQL.
    const refused = await cli(['backup', path.join(dir, 'x.backup')], { ...base, DATABASE_URL: sourceUrl })
    expect([refused.status, refused.stderr]).toEqual([2, expect.stringContaining('pg_dump')])

    // docs/backup.md, while the service serves.
    const dump = path.join(dir, 'mailroom.dump')
    const dumped = spawnSync('pg_dump', ['--format=custom', `--file=${dump}`, sourceUrl], { encoding: 'utf8' })
    expect(dumped.status, dumped.stderr).toBe(0)
    expect(await original.stop('SIGTERM')).toBe(0)
    running.splice(running.indexOf(original), 1)
    await admin(`create database ${targetName}`)
    const restored = spawnSync('pg_restore', ['--no-owner', `--dbname=${targetUrl}`, dump], { encoding: 'utf8' })
    expect(restored.status, restored.stderr).toBe(0)
    const env = { ...base, DATABASE_URL: targetUrl }
    const mark = await cli(['restore', '--mark'], { ...env, RESTORE_HOLD_AFTER_MINUTES: '0' })
    expect(mark.status, mark.stderr).toBe(0)
    expect(mark.stdout).toContain('marked the PostgreSQL database as restored')
    expect(mark.stdout).toContain(`${CONTACTS} emails, ${CONTACTS} webhooks`)
    // Held means not due and remembered: the wait below cannot tell (the original's work was not due
    // for an hour anyway), the database can. Every pending row waits for 9999 in held_work.
    const target = await openDatabase({ kind: 'postgres', url: targetUrl, poolSize: 1 })
    try {
      const unheld = await unheldWork(target.db)
      expect(unheld.pending).toBe(2 * CONTACTS)
      expect(unheld).toMatchObject({ notifications: 0, deliveries: 0, events: 0 })
    } finally {
      await target.close()
    }

    rx.respond = () => ({ status: 200, body: 'ok' })
    const seen = rx.requests.length
    const service = await startService(env)
    running.push(service)
    await new Promise((r) => setTimeout(r, 3_000))
    expect(rx.requests.length).toBe(seen)
    expect(smtp.received).toHaveLength(0)

    const resend = await cli(['held', 'resend', 'webhooks'], env)
    expect(resend.status, resend.stderr).toBe(0)
    await expect.poll(() => rx.requests.length, { timeout: 30_000, interval: 200 }).toBe(seen + CONTACTS)
    const drop = await cli(['held', 'drop', 'emails'], env)
    expect(drop.status, drop.stderr).toBe(0)
    expect(drop.stdout).toContain(`emails: ${CONTACTS} held dropped`)
    const held = await cli(['held', '--json'], env)
    expect(JSON.parse(held.stdout)).toMatchObject({ held: { emails: { count: 0 }, webhooks: { count: 0 } } })
    const call2 = await client(service.baseUrl)
    const emails = (await call2('GET', '/api/v1/notifications?limit=100')).notifications as Array<{ status: string }>
    expect(emails.map((e) => e.status)).toEqual(Array.from({ length: CONTACTS }, () => 'failed'))
    expect(smtp.received).toHaveLength(0)
    expect(await service.stop('SIGTERM')).toBe(0)
    running.splice(running.indexOf(service), 1)
  })
})
