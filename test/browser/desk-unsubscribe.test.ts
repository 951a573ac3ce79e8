import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { api, trackingNumber } from '../support/factories.js'
import { TestSmtpServer } from '../notifications/support/smtp.js'
import { DESKTOP, expectAccessible, useConsole } from './support.js'

// A recipient reads the arrival email a real SMTP server received, follows its unsubscribe link
// in Chromium and presses the page's button: the CSP lets its form post, and the API shows it.

const smtp = new TestSmtpServer()
const env: Record<string, string> = {}
beforeAll(async () => {
  await smtp.start()
  env.SMTP_URL = smtp.url
})
afterAll(() => smtp.close())
const h = useConsole(env)
let client: TestClient

describe('unsubscribe through the page', () => {
  it("the page's button unsubscribes; the next parcel sends no email", async () => {
    client = await h.t.newClient('unsubscribe-desk')
    const a = api(h.t, client)
    const m = await a.mailroom()
    await a.ok('PUT', '/api/v1/notifications/settings', {
      enabled: true,
      arrivalBatchSeconds: 0,
      reminderAfterHours: [],
      finalNoticeAfterHours: null,
      templates: {},
    })
    const una = await a.contact('RECEIVER', 'Una Unsub', { email: 'una@example.com' })
    const add = () =>
      a.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: trackingNumber('1ZUNS'), receiver: { contactId: una } },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.shelfId } },
      })
    await add()
    await h.t.ctx.notifications.runOnce()
    const [got] = await smtp.waitFor(1)
    expect(got!.mail.to).toBeDefined()
    const header = got!.mail.headerLines.find((x) => x.key === 'list-unsubscribe')!.line
    const link = new URL(/<([^>]+)>/.exec(header)![1]!)
    const { context, page } = await h.open(DESKTOP)
    const blocked: string[] = []
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) blocked.push(msg.text())
    })
    await page.goto(`${link.pathname}${link.search}`)
    await page.getByRole('heading', { name: 'Stop notification emails?' }).waitFor()
    await expectAccessible(page, 'unsubscribe page')
    expect((await a.ok('GET', `/api/v1/contacts/${una}`)).notify).toBe(true)
    await page.getByRole('button', { name: 'Unsubscribe' }).click()
    await page.getByRole('heading', { name: 'Unsubscribed' }).waitFor()
    expect(blocked).toEqual([])
    expect((await a.ok('GET', `/api/v1/contacts/${una}`)).notify).toBe(false)
    smtp.clear()
    await add()
    await h.t.ctx.notifications.runOnce()
    expect(smtp.received).toHaveLength(0)
    await context.close()
  })
})
