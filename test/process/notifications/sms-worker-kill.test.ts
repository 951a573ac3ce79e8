import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_SECRET } from '../../support/build-test-app.js'
import { startService, type RunningService } from '../../support/spawn-service.js'
import { createTestDatabase } from '../../support/test-db.js'
import { TestMessagesApi, TestSmsc } from '../../notifications/sms-servers.js'

// Real `mailroom serve` processes, a real provider and the system clock: a process killed while the
// provider holds one text (an HTTP request, or a submit_sm, sent and not yet answered) loses nothing
// and sends nothing twice: the restarted process finds that text's send marker and settles it
// 'unconfirmed'. Through each kind of provider: a Messages API and an SMPP SMSC (which the restarted
// process binds to again).
const CLIENT_ID = 'sms-kill-client'
const CLIENT_SECRET = 'sms-kill-secret-0123456789abcdef-0123456789'
const RECIPIENTS = 4

/** A provider as this test drives it: its server, the settings that name it, the numbers it was sent to. */
interface Provider {
  start(): Promise<void>
  close(): Promise<void>
  hold: (() => Promise<void>) | undefined
  settings(): Record<string, unknown>
  sentTo(): string[]
}

function messagesApi(): Provider {
  const server = new TestMessagesApi()
  return Object.assign(server, {
    settings: () => ({
      provider: 'messages',
      url: server.url,
      account: 'ACkill',
      secret: 'kill-token',
      from: '+15550009999',
    }),
    sentTo: () => server.requests.map((r) => r.form.To!),
  })
}

function smsc(): Provider {
  const server = new TestSmsc()
  return Object.assign(server, {
    settings: () => ({ provider: 'smpp', url: server.url, account: 'mailroom', secret: 'secret12', from: 'MAILROOM' }),
    // The SMSC sees the destination address without its +.
    sentTo: () => server.arrived.map((to) => `+${to.replace(/^\+/, '')}`),
  })
}

// The two run side by side: each mostly waits for a lease to run out.
describe.concurrent.each([
  ['a Messages API', messagesApi],
  ['an SMPP SMSC', smsc],
])('a worker killed while a text is in flight to %s', (_kind, make) => {
  const provider = make()
  let dataDir: string
  let env: Record<string, string>
  let dropDb: (() => Promise<void>) | undefined
  const running: RunningService[] = []

  beforeAll(async () => {
    await provider.start()
    dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-sms-kill-'))
    env = {
      MAILROOM_ENV: 'development',
      MAILROOM_SECRET: TEST_SECRET,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_BOOTSTRAP_CLIENT: `${CLIENT_ID}:${CLIENT_SECRET}:sms-kill`,
      MAILROOM_DEMO: 'false',
      SMS_ALLOW_CIDRS: '127.0.0.0/8',
      SMS_ALLOW_HTTP: 'true',
      // The held request outlasts the kill (no deadline first); its lease (2 x 8 s + 10 s) then runs out.
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
    await provider.close()
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

  it('sends no text twice and loses none: the one in flight is settled unconfirmed', async () => {
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    let holding = true
    provider.hold = async () => {
      if (!holding) return
      holding = false
      await held
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
    await call('PUT', '/api/v1/notifications/sms/settings', {
      ...provider.settings(),
      channels: {
        allowed: ['email', 'sms'],
        defaults: { ARRIVAL: ['sms'], REMINDER: ['sms'], FINAL_NOTICE: ['sms'], PICKED_UP: ['sms'] },
      },
      quietHours: null,
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
        await call('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: `R${i}`, phone: `+1555030000${i}` })
      ).contactId as string
      await call('PUT', `/api/v1/notifications/recipients/${contactId}/channels`, {
        kinds: {},
        sms: { optedIn: true, source: 'kill test' },
      })
      await call('POST', '/api/v1/packages', {
        package: { trackingNumber: `1ZSKILL${Date.now()}${i}`, receiver: { contactId } },
      })
    }
    const texts = async (c: typeof call) =>
      (await c('GET', '/api/v1/notifications')).notifications as Array<{
        status: string
        channel: string
        to: string
        attempts: number
        lastError?: string
      }>
    await expect
      .poll(async () => (await texts(call)).filter((n) => n.status === 'sent').length, {
        timeout: 30_000,
        interval: 200,
      })
      .toBe(RECIPIENTS - 1)
    expect(provider.sentTo()).toHaveLength(RECIPIENTS)
    const heldTo = provider.sentTo()[0]
    await first.stop('SIGKILL')
    running.splice(running.indexOf(first), 1)
    release()

    const second = await startService(env)
    running.push(second)
    const call2 = await client(second.baseUrl)
    // The held text is claimed again once its lease ran out; it carries its send marker, so it is
    // settled unconfirmed rather than sent a second time.
    await expect
      .poll(async () => (await texts(call2)).filter((n) => n.status !== 'pending').length, {
        timeout: 90_000,
        interval: 500,
      })
      .toBe(RECIPIENTS)
    const all = await texts(call2)
    expect(all.every((n) => n.channel === 'sms')).toBe(true)
    // Nothing sent twice: one request (submit_sm) per number, the held one included; nothing lost: every text settled.
    const sentTo = provider.sentTo().sort()
    expect(sentTo).toEqual(all.map((n) => n.to).sort())
    expect(new Set(sentTo).size).toBe(RECIPIENTS)
    const inFlight = all.find((n) => n.to === heldTo)!
    expect(inFlight).toMatchObject({ status: 'unconfirmed', attempts: 2 })
    expect(inFlight.lastError).toContain('not sent again')
    expect(all.filter((n) => n.to !== heldTo).map((n) => [n.status, n.attempts])).toEqual(
      Array.from({ length: RECIPIENTS - 1 }, () => ['sent', 1]),
    )
    expect(await second.stop('SIGTERM')).toBe(0)
    running.splice(running.indexOf(second), 1)
  })
})
