import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/platform/db/database.js'
import { apiCaller, FIRST_START_MS, freePort, startService, type RunningService } from '../../support/spawn-service.js'
import { TestSmtpServer } from '../../notifications/support/smtp.js'
import { Receiver } from '../../webhooks/support/receiver.js'
import { unheldWork } from '../../restore/unheld-work.js'

// Issue 31 as an operator meets it, with real processes, a real SMTP server and a real webhook
// receiver: a backup taken while the service serves and writes, restored into new directories and
// started; what was pending in the backup is held (not sent) until the operator resends or drops
// it, per kind; a copied data directory starts beside its original; a wrong or missing master
// secret is one line and exit 78. Embedded database only: on PostgreSQL the backup is pg_dump's.
const BIN = path.resolve(import.meta.dirname, '../../../bin/mailroom.js')
const CLIENT_ID = 'backup-client-0001'
const CLIENT_SECRET = 'backup-secret-0123456789abcdef-0123456789abcdef'
const CONTACTS = 4

/** `mailroom <args>` run to its end without blocking this process (the test keeps writing meanwhile). */
function cli(args: string[], env: Record<string, string>, timeoutMs = FIRST_START_MS) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('exit', (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr })
    })
  })
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.runIf(!process.env.TEST_DATABASE_URL)('backup and restore of the embedded database', () => {
  const smtpOriginal = new TestSmtpServer()
  const smtpRestored = new TestSmtpServer()
  const rx = new Receiver()
  let root: string
  let base: Record<string, string>
  const running: RunningService[] = []
  const dirOf = (name: string) => path.join(root, name)
  const envOf = (name: string, extra: Record<string, string> = {}) => ({
    ...base,
    MAILROOM_DATA_DIR: dirOf(name),
    ...extra,
  })
  async function start(name: string, extra: Record<string, string> = {}) {
    const s = await startService(envOf(name, extra))
    running.push(s)
    return s
  }
  async function stop(s: RunningService) {
    expect(await s.stop('SIGTERM')).toBe(0)
    running.splice(running.indexOf(s), 1)
  }

  beforeAll(async () => {
    await smtpOriginal.start()
    await smtpRestored.start()
    await rx.start()
    root = mkdtempSync(path.join(tmpdir(), 'mailroom-bk-'))
    base = {
      MAILROOM_ENV: 'development',
      MAILROOM_DEMO: 'false',
      MAILROOM_BOOTSTRAP_CLIENT: `${CLIENT_ID}:${CLIENT_SECRET}:backup`,
      MAILROOM_WEBHOOK_ALLOW_HTTP: 'true',
      MAILROOM_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      // A failed webhook is tried again in an hour: it stays pending through the test.
      WEBHOOK_RETRY_BASE_SECONDS: '3600',
      LOG_LEVEL: 'warn',
    }
  })
  afterAll(async () => {
    for (const s of running) await s.stop('SIGKILL')
    await smtpOriginal.close()
    await smtpRestored.close()
    await rx.close()
    rmSync(root, { recursive: true, force: true })
  })

  const client = (baseUrl: string) => apiCaller(baseUrl, CLIENT_ID, CLIENT_SECRET)

  async function trackingNumbersIn(name: string): Promise<Set<string>> {
    const database = await openDatabase({ kind: 'pglite', dir: path.join(dirOf(name), 'pglite') })
    try {
      const { rows } = await sql<{ t: string }>`select tracking_number as t from packages`.execute(database.db)
      return new Set(rows.map((r) => r.t))
    } finally {
      await database.close()
    }
  }

  const heldOf = async (name: string) => {
    const r = await cli(['held', '--json'], envOf(name))
    expect(r.status, r.stderr).toBe(0)
    return JSON.parse(r.stdout) as { restore: unknown; held: Record<'emails' | 'webhooks', { count: number }> }
  }

  const backupFile = () => path.join(root, 'mailroom.backup')
  let ackedBeforeBackup: string[] = []
  let ackedAfterBackup: string[] = []

  it('takes a consistent backup while the service serves and writes; a copy of the running data directory starts beside it', async () => {
    // The original's receiver fails every webhook, and its emails wait an hour for their batch to close:
    // the backup holds pending work of both kinds.
    rx.respond = () => ({ status: 503 })
    const original = await start('original', { SMTP_URL: smtpOriginal.url })
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
      events: ['Acceptance', 'Received'],
      url: `http://127.0.0.1:${rx.port}/hook`,
      timeOut: 5,
      authParams: { authType: 'none' },
    })
    const contacts: string[] = []
    for (let i = 0; i < CONTACTS; i++)
      contacts.push(
        (await call('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: `R${i}`, email: `r${i}@example.com` }))
          .contactId as string,
      )
    let n = 0
    const add = async () => {
      const trackingNumber = `1ZBACKUP${String(++n).padStart(8, '0')}`
      await call('POST', '/api/v1/packages', {
        package: { trackingNumber, receiver: { contactId: contacts[n % CONTACTS] } },
      })
      return trackingNumber
    }
    const acked: string[] = []
    for (let i = 0; i < 2 * CONTACTS; i++) acked.push(await add())
    // Every delivery tried once and failed: pending, next attempt in an hour.
    await expect.poll(() => rx.requests.length, { timeout: 30_000, interval: 200 }).toBeGreaterThanOrEqual(2 * CONTACTS)
    // The arrivals became one email per recipient (its batch closes in an hour).
    const pending = async () => ((await call('GET', '/api/v1/notifications')).notifications as unknown[]).length
    await expect.poll(pending, { timeout: 30_000, interval: 200 }).toBe(CONTACTS)

    let writing = true
    const writer = (async () => {
      while (writing) acked.push(await add())
    })()
    await sleep(300)
    ackedBeforeBackup = [...acked]
    const r = await cli(['backup', backupFile()], envOf('original'))
    ackedAfterBackup = [...acked]
    // A copy of the running directory, as `cp -a` takes it (its lock names the original).
    expect(spawnSync('cp', ['-a', dirOf('original'), dirOf('copy')]).status).toBe(0)
    writing = false
    await writer
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('master secret written beside it')
    expect(readFileSync(`${backupFile()}.secret`, 'utf8').trim()).toBe(
      readFileSync(path.join(dirOf('original'), 'master.secret'), 'utf8').trim(),
    )
    expect(ackedAfterBackup.length).toBeGreaterThan(ackedBeforeBackup.length)

    const copy = await start('copy', { SMTP_URL: smtpOriginal.url })
    expect((await fetch(`${copy.baseUrl}/readyz`)).status).toBe(200)
    await stop(copy)
    await stop(original)
    expect(smtpOriginal.received).toHaveLength(0)
  })

  it('restores into a new directory, holding what was pending; the operator resends the emails and drops the webhooks', async () => {
    const restored = await cli(['restore', backupFile()], envOf('restored', { RESTORE_HOLD_AFTER_MINUTES: '0' }))
    expect(restored.status, restored.stderr).toBe(0)
    expect(restored.stdout).toMatch(
      /held, pending for more than 0 min and possibly sent before: \d+ emails, \d+ webhooks/,
    )

    // Everything acknowledged before the backup began is in it; nothing that was never written.
    const inRestore = await trackingNumbersIn('restored')
    for (const t of ackedBeforeBackup) expect(inRestore.has(t), t).toBe(true)
    for (const t of inRestore) expect(ackedAfterBackup.includes(t), t).toBe(true)

    const before = await heldOf('restored')
    expect(before.restore).toMatchObject({ holdAfterMinutes: 0 })
    expect(before.held.emails.count).toBeGreaterThanOrEqual(CONTACTS)
    expect(before.held.webhooks.count).toBeGreaterThanOrEqual(2 * CONTACTS)
    // Held means not due and remembered: the waits below cannot tell (the original's work was not
    // due for an hour anyway), the database can. Every pending row waits for 9999 in held_work.
    const restoredDb = await openDatabase({ kind: 'pglite', dir: path.join(dirOf('restored'), 'pglite') })
    try {
      const unheld = await unheldWork(restoredDb.db)
      expect(unheld.pending).toBeGreaterThanOrEqual(CONTACTS + 2 * CONTACTS)
      expect(unheld).toMatchObject({ notifications: 0, deliveries: 0, events: 0 })
    } finally {
      await restoredDb.close()
    }

    // A second restore into the same directory is refused: it holds a database now.
    const again = await cli(['restore', backupFile()], envOf('restored'))
    expect(again.status).toBe(73)
    expect(again.stderr).toMatch(/already holds a database/)

    rx.respond = () => ({ status: 200, body: 'ok' })
    const seen = rx.requests.length
    // The arrival batches' window is over for the restored copy's emails: once released, they are due.
    const service = await start('restored', { SMTP_URL: smtpRestored.url })
    const call = await client(service.baseUrl)
    await sleep(3_000)
    expect(smtpRestored.received).toHaveLength(0)
    expect(rx.requests.length).toBe(seen)

    const listed = await cli(['held'], envOf('restored'))
    expect(listed.status, listed.stderr).toBe(0)
    expect(listed.stdout).toMatch(new RegExp(`emails: ${before.held.emails.count} held`))

    const resend = await cli(['held', 'resend', 'emails'], envOf('restored'))
    expect(resend.status, resend.stderr).toBe(0)
    expect(resend.stdout).toContain(`emails: ${before.held.emails.count} held released`)
    await smtpRestored.waitFor(CONTACTS, 30_000)
    const to = smtpRestored.received
      .map((m) => (m.mail.to as { value: Array<{ address: string }> }).value[0]!.address)
      .sort()
    expect(to).toEqual(Array.from({ length: CONTACTS }, (_, i) => `r${i}@example.com`))

    const drop = await cli(['held', 'drop', 'webhooks'], envOf('restored'))
    expect(drop.status, drop.stderr).toBe(0)
    expect(drop.stdout).toContain('dropped, never sent')
    await sleep(2_000)
    expect(rx.requests.length).toBe(seen)
    expect(await heldOf('restored')).toMatchObject({ held: { emails: { count: 0 }, webhooks: { count: 0 } } })
    const emails = (await call('GET', '/api/v1/notifications?limit=100')).notifications as Array<{ status: string }>
    expect(emails.filter((e) => e.status === 'sent')).toHaveLength(CONTACTS)

    // The restored copy works on: a new package, its webhook delivered at once.
    await call('POST', '/api/v1/packages', { package: { trackingNumber: '1ZAFTERRESTORE01' } })
    await expect.poll(() => rx.requests.length, { timeout: 30_000, interval: 200 }).toBeGreaterThan(seen)
    await stop(service)
  })

  it('holds nothing younger than RESTORE_HOLD_AFTER_MINUTES (15 by default)', async () => {
    const r = await cli(['restore', backupFile()], envOf('fresh'))
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('nothing pending for more than 15 min was held')
    expect(await heldOf('fresh')).toMatchObject({
      restore: { holdAfterMinutes: 15 },
      held: { emails: { count: 0 }, webhooks: { count: 0 } },
    })
  })

  it('says in one line which master secret is wrong or missing, exit 78', async () => {
    const secretFile = path.join(dirOf('fresh'), 'master.secret')
    const right = readFileSync(secretFile, 'utf8')
    const serve = async (extra: Record<string, string> = {}) =>
      cli(['serve'], envOf('fresh', { PORT: String(await freePort()), ...extra }))
    const oneLine = (stderr: string) => stderr.trim().split('\n')

    const wrongEnv = await serve({ MAILROOM_SECRET: 'another-master-secret-0123456789abcdef-01' })
    expect(wrongEnv.status).toBe(78)
    expect(oneLine(wrongEnv.stderr)).toEqual([
      expect.stringMatching(/^mailroom: MAILROOM_SECRET is not the master secret/),
    ])

    writeFileSync(secretFile, 'a-master-secret-of-another-database-0123456789\n')
    const wrongFile = await serve()
    expect(wrongFile.status).toBe(78)
    expect(oneLine(wrongFile.stderr)).toEqual([
      `mailroom: ${secretFile} is not the master secret this database was made with (its sealed keys do not open): put the master.secret that belongs with this database there (a backup keeps it, see docs/backup.md) or set MAILROOM_SECRET, and start again`,
    ])

    rmSync(secretFile)
    const missing = await serve()
    expect(missing.status).toBe(78)
    expect(oneLine(missing.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^mailroom: ${secretFile} is missing and MAILROOM_SECRET is unset`)),
    ])
    // The secret that start generated is gone again: the right one can be put in its place.
    expect(existsSync(secretFile)).toBe(false)

    writeFileSync(secretFile, right, { mode: 0o600 })
    const service = await start('fresh')
    await client(service.baseUrl)
    await stop(service)
  })

  it('checks the secret it saves or restores with against the database: exit 78, one line naming it', async () => {
    const secretFile = path.join(dirOf('fresh'), 'master.secret')
    const right = readFileSync(secretFile, 'utf8').trim()
    const wrongSecret = 'a-master-secret-of-another-database-0123456789'
    const file = path.join(root, 'checked.backup')
    const oneLine = (r: { stderr: string }) => r.stderr.trim().split('\n')

    // A backup whose secret does not open the database (a cron job with an old MAILROOM_SECRET),
    // the service running (the snapshot comes over the control socket) or stopped: nothing written.
    const service = await start('fresh')
    const running = await cli(['backup', file], envOf('fresh', { MAILROOM_SECRET: wrongSecret }))
    expect([running.status, oneLine(running)]).toEqual([
      78,
      [expect.stringMatching(/^mailroom: MAILROOM_SECRET is not the master secret this database was made with/)],
    ])
    await stop(service)
    writeFileSync(secretFile, `${wrongSecret}\n`, { mode: 0o600 })
    const stopped = await cli(['backup', file], envOf('fresh'))
    writeFileSync(secretFile, `${right}\n`, { mode: 0o600 })
    expect([stopped.status, oneLine(stopped)]).toEqual([
      78,
      [
        expect.stringMatching(
          new RegExp(`^mailroom: ${secretFile} is not the master secret this database was made with`),
        ),
      ],
    ])
    expect(existsSync(file)).toBe(false)
    expect(existsSync(`${file}.secret`)).toBe(false)

    // A restore with a secret file that is not the backup's, or with no secret in the backup and a
    // wrong MAILROOM_SECRET: nothing restored, and the right secret restores it afterwards.
    const ok = await cli(['backup', file], envOf('fresh'))
    expect(ok.status, ok.stderr).toBe(0)
    writeFileSync(`${file}.secret`, `${wrongSecret}\n`)
    const wrongBeside = await cli(['restore', file], envOf('checked'))
    expect([wrongBeside.status, oneLine(wrongBeside)]).toEqual([
      78,
      [
        expect.stringMatching(
          new RegExp(`^mailroom: ${file}.secret is not the master secret this backup was taken with`),
        ),
      ],
    ])
    expect(existsSync(path.join(dirOf('checked'), 'pglite'))).toBe(false)
    expect(existsSync(path.join(dirOf('checked'), 'master.secret'))).toBe(false)
    const noSecret = await cli(['backup', file, '--no-secret'], envOf('fresh'))
    expect(noSecret.status, noSecret.stderr).toBe(0)
    const wrongEnv = await cli(['restore', file], envOf('checked', { MAILROOM_SECRET: wrongSecret }))
    expect([wrongEnv.status, oneLine(wrongEnv)]).toEqual([
      78,
      [expect.stringMatching(/^mailroom: MAILROOM_SECRET is not the master secret this backup was taken with/)],
    ])
    const restored = await cli(['restore', file], envOf('checked', { MAILROOM_SECRET: right }))
    expect(restored.status, restored.stderr).toBe(0)
  })

  it('seals the master secret with a passphrase when asked, and restores only with it', async () => {
    const passphrase = path.join(root, 'passphrase')
    writeFileSync(passphrase, 'correct horse battery staple\n', { mode: 0o600 })
    const sealedFile = path.join(root, 'sealed.backup')
    const b = await cli(['backup', sealedFile, '--passphrase-file', passphrase], envOf('fresh'))
    expect(b.status, b.stderr).toBe(0)
    expect(existsSync(`${sealedFile}.secret`)).toBe(false)

    const none = await cli(['restore', sealedFile], envOf('sealed'))
    expect([none.status, none.stderr.trim()]).toEqual([
      2,
      'mailroom: the master secret is sealed in this backup: give its passphrase with --passphrase-file',
    ])
    writeFileSync(path.join(root, 'wrong'), 'not the passphrase at all\n')
    const wrong = await cli(['restore', sealedFile, '--passphrase-file', path.join(root, 'wrong')], envOf('sealed'))
    expect(wrong.status).toBe(78)
    expect(wrong.stderr).toMatch(/the passphrase does not open the master secret/)
    const ok = await cli(['restore', sealedFile, '--passphrase-file', passphrase], envOf('sealed'))
    expect(ok.status, ok.stderr).toBe(0)
    expect(readFileSync(path.join(dirOf('sealed'), 'master.secret'), 'utf8')).toBe(
      readFileSync(path.join(dirOf('fresh'), 'master.secret'), 'utf8'),
    )
  })
})
