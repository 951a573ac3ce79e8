import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api, trackingNumber } from '../support/factories.js'
import { DESKTOP, expectAccessible, signIn, useConsole } from './support.js'

// Issue 29 at the desk in Chromium: a clerk, keyboard only, records on the hand-over screen that
// the recipient in front of them wants texts: their mobile number, the channel, their consent
// (recorded with the desk as its source). Checked through the API afterwards.

const h = useConsole()
let client: TestClient
let a: ReturnType<typeof api>
const clerk = { email: 'clerk@desk-texts.example', password: 'clerk password 123' }

beforeAll(async () => {
  client = await h.t.newClient('desk-texts')
  a = api(h.t, client)
  await createUser(h.t, client, { ...clerk, role: 'clerk' })
})

const focused = (page: Page) =>
  page.evaluate<string>("document.activeElement?.id || document.activeElement?.tagName || ''")
async function tabTo(page: Page, target: string) {
  for (let i = 0; i < 40 && (await focused(page)) !== target; i++) await page.keyboard.press('Tab')
  expect(await focused(page)).toBe(target)
}

describe('a recipient’s texts at the hand-over desk', () => {
  it('a clerk records texts, the number and the consent with the keyboard only; no consent is refused', async () => {
    const m = await a.mailroom()
    const sol = await a.contact('RECEIVER', 'Sol Texter', { email: 'sol@example.com' })
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('1ZTEXT'), receiver: { contactId: sol } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.shelfId } },
    })
    const { context, page } = await h.open(DESKTOP)
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/pickup')
    await expect.poll(() => focused(page)).toBe('pickup-find')
    await page.keyboard.type('Sol Tex')
    await page.getByRole('option', { name: /Sol Texter/ }).waitFor()
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await page.getByText('Texts for Sol Texter: not opted in').waitFor()

    // Open the fold, type the number, choose texts only (arrows in the radio group).
    await tabTo(page, 'SUMMARY')
    await page.keyboard.press('Enter')
    await tabTo(page, 'desk-texts-phone')
    await page.keyboard.type('+1 555 010 4242')
    await page.keyboard.press('Tab')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')
    expect(await page.getByRole('radio', { name: 'Text (SMS)' }).isChecked()).toBe(true)
    // Without their consent: refused under the box, nothing saved.
    await tabTo(page, 'BUTTON')
    await page.keyboard.press('Enter')
    const agreed = page.getByRole('checkbox', { name: /They agree to receive texts/ })
    await expect.poll(() => agreed.getAttribute('aria-invalid')).toBe('true')
    await page.getByText('Texts need their consent: tick that they agree.').waitFor()
    expect((await a.ok('GET', `/api/v1/notifications/recipients/${sol}/channels`)).sms.optedIn).toBe(false)

    await tabTo(page, 'desk-texts-agreed')
    await page.keyboard.press('Space')
    await tabTo(page, 'BUTTON')
    await page.keyboard.press('Enter')
    await page.getByText('Texts for Sol Texter saved.').waitFor()
    await page.getByText(/Texts for Sol Texter: opted in .* \(desk \(hand-over\)\)/).waitFor()
    const saved = await a.ok('GET', `/api/v1/notifications/recipients/${sol}/channels`)
    expect(saved).toMatchObject({
      kinds: { ARRIVAL: ['sms'], REMINDER: ['sms'], FINAL_NOTICE: ['sms'], PICKED_UP: ['sms'] },
      sms: { optedIn: true, source: 'desk (hand-over)', phone: '+15550104242', stopped: false },
    })
    expect((await a.ok('GET', `/api/v1/contacts/${sol}`)).phone).toBe('+1 555 010 4242')
    await expectAccessible(page, 'hand over with texts')
    await context.close()
  })
})
