import { afterAll, beforeAll, beforeEach } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { TestSmtpServer } from './support/smtp.js'
import { TestMessagesApi } from './sms-servers.js'

export const PUBLIC_URL = 'https://mailroom.example.test'
export const TOKEN = 'auth-token-123'

/**
 * The app with a Messages API provider (a real HTTP server) and an SMTP server, a mailroom, and the
 * helpers the texts' tests share: call inside a describe block; read the fields inside tests.
 * `configured: false` leaves the subscription's SMS settings at their defaults (the file saves them).
 */
export function useSmsApp(extraEnv: Record<string, string> = {}, { configured = true } = {}) {
  const smtp = new TestSmtpServer()
  const provider = new TestMessagesApi()
  const env: Record<string, string> = {
    MAILROOM_PUBLIC_URL: PUBLIC_URL,
    SMS_ALLOW_CIDRS: '127.0.0.0/8',
    SMS_ALLOW_HTTP: 'true',
    NOTIFY_MAX_ATTEMPTS: '3',
    ...extraEnv,
  }
  beforeAll(async () => {
    await smtp.start()
    await provider.start()
    env.SMTP_URL = smtp.url
  })
  afterAll(async () => {
    await smtp.close()
    await provider.close()
  })
  const t = useTestApp(env)
  const client = useClient(t)
  type Api = ReturnType<typeof api>
  let a: Api
  let room: Awaited<ReturnType<Api['mailroom']>>
  let carrierId = ''
  let phoneN = 100
  const smsSettings = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
    provider: 'messages',
    url: provider.url,
    account: 'AC0123',
    secret: TOKEN,
    from: '+15550009999',
    senderName: 'HQ Mailroom',
    channels: {
      allowed: ['email', 'sms'],
      defaults: { ARRIVAL: ['email'], REMINDER: ['email'], FINAL_NOTICE: ['email'], PICKED_UP: ['email'] },
    },
    quietHours: null,
    ...over,
  })
  const addFor = async (receiverId: string, siteId = room.shelfId): Promise<string> => {
    const body = await a.ok('POST', '/api/v1/packages', {
      package: {
        trackingNumber: trackingNumber('1ZSMS'),
        carrier: { carrierId },
        sender: { contactId: room.senderId },
        receiver: { contactId: receiverId },
      },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: siteId } },
    })
    return body.packageId as string
  }
  const s = {
    t,
    client,
    smtp,
    provider,
    get a() {
      return a
    },
    get room() {
      return room
    },
    smsSettings,
    addFor,
    async list(query: string): Promise<Array<Record<string, unknown>>> {
      return (await a.ok('GET', `/api/v1/notifications?${query}`)).notifications as Array<Record<string, unknown>>
    },
    /** A recipient with a phone, opted in, with these channels for arrivals. */
    async texter(arrival: string[], name?: string): Promise<{ id: string; phone: string }> {
      const phone = `+1 (555) 010-0${++phoneN}`
      const id = await a.contact('RECEIVER', name ?? `Tex ${phoneN}`, { email: `t${phoneN}@example.com`, phone })
      await a.ok('PUT', `/api/v1/notifications/recipients/${id}/channels`, {
        kinds: { ARRIVAL: arrival },
        sms: { optedIn: true, source: 'desk form' },
      })
      return { id, phone: `+15550100${phoneN}` }
    },
    /** A token issued now (the clock moved by hours since the test began). */
    async refresh(): Promise<void> {
      a = api(t, await t.refresh(client))
    },
    /** One parcel for the recipient at the site, its batch closed and the worker run once. */
    async arriveAndSend(receiverId: string, siteId?: string): Promise<string> {
      return (await s.arriveAllAndSend(receiverId, 1, siteId))[0]!
    },
    /** `n` parcels for the recipient in one batch, closed, and the worker run once. */
    async arriveAllAndSend(receiverId: string, n: number, siteId?: string): Promise<string[]> {
      const ids: string[] = []
      for (let i = 0; i < n; i++) ids.push(await addFor(receiverId, siteId))
      t.clock.advance(61_000)
      await t.ctx.notifications.runOnce()
      return ids
    },
  }
  beforeAll(async () => {
    a = api(t, client)
    room = await a.mailroom()
    const carriers = await a.ok('GET', '/api/v1/carriers/catalog')
    carrierId = (carriers.carriers as Array<{ carrierId: string; name: string }>).find(
      (c) => c.name === 'UPS',
    )!.carrierId
    await a.ok('PUT', '/api/v1/notifications/settings', {
      enabled: true,
      arrivalBatchSeconds: 60,
      reminderAfterHours: [],
      finalNoticeAfterHours: null,
      templates: {},
    })
    if (configured) await a.ok('PUT', '/api/v1/notifications/sms/settings', smsSettings())
  })
  // The tests move the clock by hours: each starts with a token issued now.
  beforeEach(() => s.refresh())
  return s
}

/** 'HH:MM' in New York (the mailroom's location) `hours` from the app's clock. */
export function newYorkAt(now: Date, hours: number): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: 'America/New_York',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(now.getTime() + hours * 3_600_000))
}
