import { afterAll, beforeAll } from 'vitest'
import { TestSmtpServer } from './support/smtp.js'
import { TestMessagesApi } from './sms-servers.js'
import { useTextsRoom } from './texts-room.js'

export const PUBLIC_URL = 'https://mailroom.example.test'
export const TOKEN = 'auth-token-123'

/**
 * The texts' room (texts-room.ts) with a Messages API provider (a real HTTP server) and an SMTP
 * server: call inside a describe block; read the fields inside tests.
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
  const room = useTextsRoom(env, '1ZSMS')
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
  const s = Object.assign(room, {
    smtp,
    provider,
    smsSettings,
    /** A recipient with a phone, opted in, with these channels for arrivals. */
    async texter(arrival: string[], name?: string): Promise<{ id: string; phone: string }> {
      const phone = `+1 (555) 010-0${++phoneN}`
      const id = await room.a.contact('RECEIVER', name ?? `Tex ${phoneN}`, { email: `t${phoneN}@example.com`, phone })
      await room.a.ok('PUT', `/api/v1/notifications/recipients/${id}/channels`, {
        kinds: { ARRIVAL: arrival },
        sms: { optedIn: true, source: 'desk form' },
      })
      return { id, phone: `+15550100${phoneN}` }
    },
  })
  beforeAll(async () => {
    if (configured) await room.a.ok('PUT', '/api/v1/notifications/sms/settings', smsSettings())
  })
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
