import { afterAll, beforeAll, expect, it } from 'vitest'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { TestSmtpServer } from './support/smtp.js'

// A worker claims a batch under one lease and sends it ten at a time through a pool of five SMTP
// connections: the batch's last rows wait in line, and may outlive the lease.
const smtp = new TestSmtpServer()
const env: Record<string, string> = { MAILROOM_PUBLIC_URL: 'https://mailroom.example.test' }
beforeAll(async () => {
  await smtp.start()
  env.SMTP_URL = smtp.url
})
afterAll(() => smtp.close())
const t = useTestApp(env)
const client = useClient(t)

it('does not send a notification that another worker took while it waited in line in a claimed batch', async () => {
  const a = api(t, client)
  const room = await a.mailroom()
  await a.ok('PUT', '/api/v1/notifications/settings', {
    enabled: true,
    arrivalBatchSeconds: 0,
    reminderAfterHours: [],
    finalNoticeAfterHours: null,
    templates: {},
  })
  const count = 12
  for (let i = 0; i < count; i++) {
    const who = await a.contact('RECEIVER', `Lena Lease ${i}`, { email: `lena${i}@example.com` })
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('1ZLEASE'), receiver: { contactId: who } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: room.shelfId } },
    })
  }
  // The server holds every message until released: the first sends stay in flight.
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  smtp.hold = () => gate
  smtp.clear()

  const pass = t.ctx.notifications.runOnce()
  try {
    await expect.poll(() => smtp.dataStarted, { timeout: 5_000 }).toBeGreaterThanOrEqual(5)
    // Meanwhile the lease ran out and another worker claimed every row again (its claim counts an attempt).
    await t.ctx.db
      .updateTable('notifications')
      .set((eb) => ({
        locked_by: 'another-worker',
        locked_until: new Date(t.clock.now().getTime() + 60_000),
        attempts: eb('attempts', '+', 1),
      }))
      .where('status', '=', 'pending')
      .execute()
  } finally {
    release()
  }
  const step = await pass
  smtp.hold = undefined
  // At most ten were handed to the SMTP pool before the other claim (concurrency 10): at least the
  // two still in line, and any other not yet at its send, are skipped; none of them reached the server.
  expect(step.skipped).toBeGreaterThanOrEqual(count - 10)
  expect(step.sent).toBe(0)
  expect(smtp.received.length + step.skipped).toBe(count)
  expect(smtp.dataStarted).toBe(smtp.received.length)
})
