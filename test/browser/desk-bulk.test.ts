import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { DESKTOP, TABLET, expectAccessible, screenshot, signIn, useConsole } from './support.js'

// Two desk details in Chromium: bulk receiving gives each scanned parcel its own recipient, and
// the hand-over's "sign first" message goes away as soon as the collector signs.

const h = useConsole()
let client: TestClient
let hq: string
let ada: string
let grace: string
let charles: string
const clerk = { email: 'clerk@bulk.example', password: 'clerk password 123' }
const numbers: string[] = []

beforeAll(async () => {
  client = await h.t.newClient('bulk-desk')
  const a = api(h.t, client)
  const locationId = await a.location('Depot')
  hq = await a.site({ type: 'site', name: 'Depot', locationId, primary: true })
  ada = (await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Ada Lovelace' })).contactId
  grace = (await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Grace Hopper' })).contactId
  charles = (await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Charles Babbage' })).contactId
  for (let i = 0; i < 3; i++)
    numbers.push((await a.ok('POST', '/api/v1/trackingNumbers', undefined, 200)).trackingNumber)
  await createUser(h.t, client, { ...clerk, role: 'clerk' })
})

async function record(trackingNumber: string) {
  const res = await h.t.inject({
    method: 'GET',
    url: `/api/v1/packages/tracking/${trackingNumber}`,
    headers: client.auth,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function pickRecipient(page: Page, trackingNumber: string, typed: string, name: RegExp) {
  const box = page.getByRole('combobox', { name: `Recipient for ${trackingNumber}` })
  await box.pressSequentially(typed)
  await page
    .getByRole('listbox', { name: `Recipient for ${trackingNumber} suggestions` })
    .getByRole('option', { name })
    .click()
  await expect.poll(() => box.inputValue()).toMatch(name)
}

describe('bulk receive and the signature', () => {
  it('bulk mode: each scanned parcel gets its own recipient', async () => {
    const { context, page } = await h.open(TABLET)
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/receive')
    await page.getByLabel('Location', { exact: true }).selectOption({ label: 'Depot' })
    await page.getByLabel('Bulk mode').check()
    const [first, second] = numbers as [string, string]
    for (const n of [first, second]) {
      await page.getByRole('textbox', { name: 'Scan', exact: true }).focus()
      await page.keyboard.type(n)
      await page.keyboard.press('Enter')
      await page.getByRole('cell', { name: n, exact: true }).waitFor()
    }
    await pickRecipient(page, first, 'Ada', /Ada Lovelace/)
    await pickRecipient(page, second, 'Gra', /Grace Hopper/)
    // A picker per row still fits the tablet: no sideways scrolling.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(
      0,
    )
    await expectAccessible(page, 'receive (bulk, recipients per row)')
    await screenshot(page, 'receive-bulk-recipients-tablet')
    await page.getByRole('button', { name: 'Save all' }).click()
    await page.getByRole('heading', { name: 'Scanned (0)' }).waitFor()
    expect(await record(first)).toMatchObject({
      receiver: { contactId: ada },
      currentLocation: { inboundSiteId: hq },
    })
    expect(await record(second)).toMatchObject({
      receiver: { contactId: grace },
      currentLocation: { inboundSiteId: hq },
    })
    expect(h.pageErrors).toEqual([])
    await context.close()
  })

  it('the "signature required" message clears when the pad gets a stroke', async () => {
    const waiting = numbers[2]!
    const a = api(h.t, client)
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: waiting, receiver: { contactId: charles } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: hq } },
    })
    const { context, page } = await h.open(DESKTOP)
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/pickup')
    await page.getByRole('combobox', { name: 'Pickup code or recipient' }).fill('Charles')
    await page.getByRole('option', { name: /Charles Babbage/ }).click()
    await page.getByRole('checkbox', { name: new RegExp(waiting) }).waitFor()
    await page.getByRole('button', { name: 'Hand over' }).click()

    const pad = page.getByRole('img', { name: 'Signature' })
    const message = page.getByText('Signature required')
    await message.waitFor()
    // Read with the pad it is about.
    expect(await pad.getAttribute('aria-describedby')).toBe('signature-error')
    await expectAccessible(page, 'hand over (signature required)')
    await screenshot(page, 'hand-over-signature-required')

    const box = (await pad.boundingBox())!
    await page.mouse.move(box.x + 30, box.y + 100)
    await page.mouse.down()
    for (let i = 1; i <= 8; i++) await page.mouse.move(box.x + 30 + i * 25, box.y + 100 + (i % 2 ? -30 : 30))
    await page.mouse.up()
    await message.waitFor({ state: 'detached' })
    expect(await pad.getAttribute('aria-describedby')).toBeNull()

    await page.getByRole('button', { name: 'Hand over' }).click()
    await page.getByText('Handed over 1 parcel to Charles Babbage').waitFor()
    expect(await record(waiting)).toMatchObject({ currentStatus: 'DELIVERED' })
    expect(h.pageErrors).toEqual([])
    await context.close()
  })
})
