import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_SECRET } from '../../support/build-test-app.js'
import { startService, type RunningService } from '../../support/spawn-service.js'
import { createTestDatabase } from '../../support/test-db.js'
import { TestSmtpServer } from '../../notifications/support/smtp.js'

// Real `mailroom serve` processes, a real SMTP server and the system clock: a process killed while
// the SMTP server holds one email (DATA sent, no answer yet) loses nothing, and the restarted
// process sends that one email once more and no other again.
const CLIENT_ID = 'notify-kill-client'
const CLIENT_SECRET = 'notify-kill-secret-0123456789abcdef-0123456789'
const RECIPIENTS = 6

describe('a worker killed while an email is in flight', () => {
  const smtp = new TestSmtpServer()
  let dataDir: string
  let env: Record<string, string>
  let dropDb: (() => Promise<void>) | undefined
  const running: RunningService[] = []

  beforeAll(async () => {
    await smtp.start()
    dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-notify-kill-'))
    env = {
      MAILROOM_ENV: 'development',
      MAILROOM_SECRET: TEST_SECRET,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_BOOTSTRAP_CLIENT: `${CLIENT_ID}:${CLIENT_SECRET}:notify-kill`,
      MAILROOM_DEMO: 'false',
      SMTP_URL: smtp.url,
      // The held send outlasts the kill (no timeout first); its lease (2 x 8 s + 10 s) then runs out.
      NOTIFY_SEND_TIMEOUT_SECONDS: '8',
      LOG_LEVEL: 'warn',
    }
    if (process.env.TEST_DATABASE_URL) {
      const db = await createTestDatabase({ migrate: false })
      await db.handle.close()
      env.DATABASE_URL = db.url!
      dropDb = () => db.drop()
    }
  })
  afterAll(async () => {
    for (const s of running) await s.stop('SIGKILL')
    await smtp.close()
    await dropDb?.()
    rmSync(dataDir, { recursive: true, force: true })
  })

  async function client(base: string) {
    const res = await fetch(`${base}/auth/api/v1/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}` },
    })
    expect(res.status).toBe(200)
    const { access_token: token } = (await res.json()) as { access_token: string }
    return async (method: string, url: string, body?: unknown) => {
      const r = await fetch(`${base}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      })
      const json = (await r.json()) as Record<string, unknown>
      expect(r.status, `${method} ${url}: ${JSON.stringify(json)}`).toBeLessThan(300)
      return json
    }
  }

  // Two service starts, the held send's lease (2 x 8 s + 10 s) running out, then the resend.
  it('resends only the email that was in flight, with the same Message-ID', async () => {
    // The first email's DATA is held without an answer; the others are accepted.
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    let holding = true
    let killed = false
    smtp.hold = async () => {
      if (!holding) return
      holding = false
      await held
      if (killed) throw new Error('the sender is gone')
    }
    const first = await startService(env)
    running.push(first)
    const call = await client(first.baseUrl)
    await call('PUT', '/api/v1/notifications/settings', {
      enabled: true,
      arrivalBatchSeconds: 0,
      reminderAfterHours: [],
      finalNoticeAfterHours: null,
      templates: {},
    })
    const locationId = (
      await call('POST', '/api/v1/locations', {
        name: 'Kill HQ',
        address: { line1: '1 Main St', city: 'New York', state: 'NY', postalCode: '10001', country: 'US' },
        timezone: 'America/New_York',
      })
    ).locationId as string
    await call('POST', '/api/v1/inboundsites', { type: 'site', name: 'Kill HQ', locationId, primary: true })
    for (let i = 0; i < RECIPIENTS; i++) {
      const contactId = (
        await call('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: `R${i}`, email: `r${i}@example.com` })
      ).contactId as string
      await call('POST', '/api/v1/packages', {
        package: { trackingNumber: `1ZKILL${Date.now()}${i}`, receiver: { contactId } },
      })
    }
    const statuses = async (c: typeof call) =>
      ((await c('GET', '/api/v1/notifications')).notifications as Array<{ status: string }>).map((n) => n.status)
    // Every email but the held one is accepted and recorded as sent.
    await expect
      .poll(async () => (await statuses(call)).filter((s) => s === 'sent').length, { timeout: 30_000, interval: 200 })
      .toBe(RECIPIENTS - 1)
    expect(smtp.dataStarted).toBe(RECIPIENTS)
    await first.stop('SIGKILL')
    running.splice(running.indexOf(first), 1)
    killed = true
    release()

    const second = await startService(env)
    running.push(second)
    const call2 = await client(second.baseUrl)
    await expect
      .poll(async () => (await statuses(call2)).filter((s) => s === 'sent').length, { timeout: 90_000, interval: 500 })
      .toBe(RECIPIENTS)
    const all = (await call2('GET', '/api/v1/notifications')).notifications as Array<{
      notificationId: string
      attempts: number
    }>
    const ids = smtp.received.map((m) => m.messageId).sort()
    expect(ids).toEqual(all.map((n) => `<${n.notificationId}@localhost>`).sort())
    expect(all.map((n) => n.attempts).sort()).toEqual([1, 1, 1, 1, 1, 2])
    expect(await second.stop('SIGTERM')).toBe(0)
    running.splice(running.indexOf(second), 1)
  })

  // Issue 24's fault trial: a worker killed with many sends in flight. It claims no more than it
  // sends at once (its concurrency, 10), so the kill leaves at most those to be sent again.
  it('re-sends at most its concurrency when killed with every send held', async () => {
    const count = 16
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    smtp.hold = () => held
    smtp.clear()
    const started = smtp.dataStarted
    const first = await startService(env)
    running.push(first)
    const call = await client(first.baseUrl)
    const before = ((await call('GET', '/api/v1/notifications?limit=100')).notifications as unknown[]).length
    for (let i = 0; i < count; i++) {
      const contactId = (
        await call('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: `K${i}`, email: `k${i}@example.com` })
      ).contactId as string
      await call('POST', '/api/v1/packages', {
        package: { trackingNumber: `1ZKILLB${Date.now()}${i}`, receiver: { contactId } },
      })
    }
    await expect.poll(() => smtp.dataStarted - started, { timeout: 30_000, interval: 200 }).toBe(10)
    await new Promise((r) => setTimeout(r, 1_000))
    expect(smtp.dataStarted - started).toBe(10)
    await first.stop('SIGKILL')
    running.splice(running.indexOf(first), 1)
    // The server accepts what it held, as a real one would: those ten reached the recipients.
    smtp.hold = undefined
    release()

    const second = await startService(env)
    running.push(second)
    const call2 = await client(second.baseUrl)
    const sent = async () =>
      ((await call2('GET', '/api/v1/notifications?limit=100')).notifications as Array<{ status: string }>).filter(
        (n) => n.status === 'sent',
      ).length
    await expect.poll(sent, { timeout: 90_000, interval: 500 }).toBe(before + count)
    const ids = smtp.received.map((m) => m.messageId)
    expect(new Set(ids).size).toBe(count)
    // Every email arrived; the copies are the sends in flight at the kill, at most the concurrency.
    expect(ids.length - count).toBeLessThanOrEqual(10)
    expect(await second.stop('SIGTERM')).toBe(0)
    running.splice(running.indexOf(second), 1)
  })
})
