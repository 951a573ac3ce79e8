import { afterAll, beforeAll, expect, it } from 'vitest'
import { createContext } from '../../src/app/context.js'
import { TEST_SECRET } from '../support/build-test-app.js'
import { api } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'
import { arrivalsFor } from './support/arrivals.js'
import { TestSmtpServer } from './support/smtp.js'

// A slow SMTP server (issue 24's fault trial: DATA held 15 s, send timeout 10 s; here 1.5 s and 1 s)
// and two workers of two processes on one database, their clock running: each email is accepted
// once, never by two workers at once, however long the server holds it and whatever comes after.
const smtp = new TestSmtpServer()
const env: Record<string, string> = {
  MAILROOM_PUBLIC_URL: 'https://mailroom.example.test',
  NOTIFY_SEND_TIMEOUT_SECONDS: '1',
  NOTIFY_RETRY_BASE_SECONDS: '1',
}
beforeAll(async () => {
  await smtp.start()
  env.SMTP_URL = smtp.url
})
afterAll(() => smtp.close())
const t = useTestApp(env)
const client = useClient(t)

it('sends each email once when the server holds DATA beyond the send timeout, with two workers', async () => {
  const a = api(t, client)
  const count = 14
  await arrivalsFor(a, count, { name: 'Sam Slow', mailbox: 'sam', prefix: '1ZSLOW' })
  smtp.clear()
  smtp.hold = () => new Promise((resolve) => setTimeout(resolve, 1_500))
  const other = createContext({ config: t.config, database: t.ctx.database, masterSecret: TEST_SECRET, clock: t.clock })
  // The test clock follows real time (the leases are measured against real sends); the retry
  // delays are short (NOTIFY_RETRY_BASE_SECONDS=1), so a resend would happen within the test.
  let last = Date.now()
  const ticking = setInterval(() => {
    const now = Date.now()
    t.clock.advance(now - last)
    last = now
  }, 20)
  const stops = [t.ctx.notifications.start(), other.notifications.start()]
  try {
    const settled = async () =>
      ((await a.ok('GET', '/api/v1/notifications?limit=100')).notifications as Array<{ status: string }>).filter(
        (n) => n.status !== 'pending',
      ).length
    await expect.poll(settled, { timeout: 30_000, interval: 200 }).toBe(count)
    // Past the retry delays: nothing more is sent.
    await new Promise((r) => setTimeout(r, 4_000))
  } finally {
    clearInterval(ticking)
    await Promise.all(stops.map((stop) => stop()))
    other.notifications.close()
    smtp.hold = undefined
  }
  const all = (await a.ok('GET', '/api/v1/notifications?limit=100')).notifications as Array<{
    notificationId: string
    status: string
    lastError: string | null
  }>
  expect(all.map((n) => n.status)).toEqual(Array(count).fill('sent'))
  // Each email accepted once; none by two workers at once.
  expect(smtp.received.map((m) => m.messageId).sort()).toEqual(
    all.map((n) => `<${n.notificationId}@mailroom.example.test>`).sort(),
  )
  expect(smtp.overlaps).toBe(0)
  // The server never answered in time: the list says so.
  expect(all.every((n) => /did not answer/.test(String(n.lastError)))).toBe(true)
}, 60_000)
