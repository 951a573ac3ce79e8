import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { DESKTOP, expectAccessible, signIn, useConsole } from './support.js'

// Issue 30 at the desk, in Chromium: a clerk flags a parcel on Receive with the keyboard only,
// and at hand-over days later sees the flags (medication announced), the signature the flag asks
// for although the site asks none, and the holding fee before confirming; the receipt charges it.

const UPS = '1Z999AA10123456784'
const DAY = 86_400_000
const PHONE = { width: 390, height: 844 }
const h = useConsole()
let client: TestClient
let ada: string
let hq: string
const clerk = { email: 'clerk@flags.example', password: 'clerk password 123' }

beforeAll(async () => {
  client = await h.t.newClient('flags-desk')
  const a = api(h.t, client)
  const locationId = await a.location('Tower')
  // Two free days, then 1.50 € a day; no signature asked at this site.
  hq = await a.site({
    type: 'site',
    name: 'HQ',
    locationId,
    primary: true,
    signatureRule: 'off',
    holdingFee: { freeDays: 2, amountPerDay: 150, currency: 'EUR', cap: 1000 },
  })
  ada = (await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Ada Lovelace' })).contactId
  await createUser(h.t, client, { ...clerk, role: 'clerk', name: 'Desk Clerk' })
})

const focusedId = (page: Page) => page.evaluate<string>("document.activeElement?.id ?? ''")
const expectFocus = (page: Page, id: string) => expect.poll(() => focusedId(page), { timeout: 5_000 }).toBe(id)
/** Presses `key` until the focus is on `id` (at most `max` times). */
async function tabTo(page: Page, id: string, key: 'Tab' | 'Shift+Tab', max = 10) {
  for (let i = 0; i < max && (await focusedId(page)) !== id; i++) await page.keyboard.press(key)
  await expectFocus(page, id)
}
const get = async (url: string) => {
  const res = await h.t.inject({ method: 'GET', url, headers: client.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

describe('flags at the desk', () => {
  it('flags a parcel on Receive by keyboard; hand-over shows the flags, asks the signature and shows the fee', async () => {
    const receiving = await h.open(DESKTOP)
    let page = receiving.page
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/receive')
    await page.getByRole('heading', { name: 'Receive' }).waitFor()
    await page.getByLabel('Location', { exact: true }).selectOption({ label: 'HQ' })
    await page.getByLabel('Scan').focus()
    await page.keyboard.type(UPS)
    await page.keyboard.press('Enter')
    await expectFocus(page, 'receive-recipient')
    await page.keyboard.type('Ada')
    await page.getByRole('option', { name: /Ada Lovelace/ }).waitFor()
    await page.keyboard.press('Enter')
    await expectFocus(page, 'save-package')

    // Back from Save to the chips, Space toggles one, Tab on to another, Enter toggles it.
    await tabTo(page, 'receive-flag-MEDICATION', 'Shift+Tab')
    await page.keyboard.press('Space')
    const medication = page.getByRole('button', { name: 'Medication' })
    await expect.poll(() => medication.getAttribute('aria-pressed')).toBe('true')
    await tabTo(page, 'receive-flag-SIGNATURE_REQUIRED', 'Tab')
    await page.keyboard.press('Enter')
    await expect
      .poll(() => page.getByRole('button', { name: 'Signature required' }).getAttribute('aria-pressed'))
      .toBe('true')
    await expectAccessible(page, 'receive with flags')
    await tabTo(page, 'save-package', 'Tab')
    await page.keyboard.press('Enter')
    await page.getByRole('link', { name: UPS }).waitFor()
    const saved = await get(`/api/v1/packages/tracking/${UPS}`)
    expect(saved.flags).toEqual(['MEDICATION', 'SIGNATURE_REQUIRED'])
    expect(saved.receiver.contactId).toBe(ada)
    await receiving.context.close()

    // Four days less an hour later: 4 days held, 2 free, 2 charged at 1.50 €.
    h.t.clock.advance(4 * DAY - 3_600_000)
    client = await h.t.refresh(client)
    expect((await get(`/api/v1/packages/${saved.packageId}?type=DETAILED`)).holdingFee).toMatchObject({
      amount: 300,
      currency: 'EUR',
      chargedDays: 2,
    })
    const desk = await h.open(DESKTOP)
    page = desk.page
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/pickup')
    await page.getByRole('heading', { name: 'Hand over' }).waitFor()
    const find = page.getByRole('combobox', { name: 'Pickup code or recipient' })
    await find.pressSequentially('Ada')
    await page.getByRole('option', { name: /Ada Lovelace/ }).click()
    await page.getByRole('checkbox', { name: new RegExp(UPS) }).waitFor()
    const alert = page.locator('.medication[role="alert"]')
    expect(await alert.textContent()).toContain(`Medication: ${UPS}`)
    const flags = page.getByRole('list', { name: 'Flags' })
    expect(await flags.textContent()).toContain('Signature required')
    expect(await page.locator('#pickup-fee').textContent()).toContain('3.00')
    await expectAccessible(page, 'hand-over with flags and fee')

    // The site asks no signature, the flag does: without one the hand-over is refused on the page.
    await page.getByRole('button', { name: 'Hand over' }).click()
    await page.getByText('Signature required: the collector signs').waitFor()
    await page.getByLabel("Or type the collector's full name as their signature").fill('Ada Lovelace')
    await page.getByRole('button', { name: 'Hand over' }).click()
    await page.getByText('Handed over 1 parcel to Ada Lovelace').waitFor()
    await page.getByText('Holding fee charged: €3.00').waitFor()
    const { pickups } = await get(`/api/v1/pickups?contactId=${ada}`)
    expect(pickups[0].holdingFees.totals).toEqual([{ amount: 300, currency: 'EUR' }])
    expect(pickups[0].typedSignature).toBe('Ada Lovelace')
    await desk.context.close()
  })

  it('edits a parcel’s flags on its page with the same chips, by keyboard at phone width', async () => {
    const a = api(h.t, client)
    const { packageId } = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: '1ZFLAGSEDIT01', receiver: { contactId: ada }, flags: ['PERISHABLE'] },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: hq } },
    })
    const { page, context } = await h.open(PHONE)
    await signIn(page, clerk.email, clerk.password)
    await page.goto(`/console/packages/${packageId}`)
    const perishable = page.getByRole('button', { name: 'Perishable' })
    await expect.poll(() => perishable.getAttribute('aria-pressed')).toBe('true')
    await expectAccessible(page, 'package page with flag chips')

    // Space clears the flag it had, Tab on to Fragile, Enter sets it, Tab to Save and Enter.
    await perishable.focus()
    await page.keyboard.press('Space')
    await expect.poll(() => perishable.getAttribute('aria-pressed')).toBe('false')
    await tabTo(page, 'pkg-flag-FRAGILE', 'Tab')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.getByRole('button', { name: 'Fragile' }).getAttribute('aria-pressed')).toBe('true')
    await page.keyboard.press('Tab')
    expect(await page.evaluate<string>("document.activeElement?.textContent?.trim() ?? ''")).toBe('Save changes')
    await page.keyboard.press('Enter')
    await page.getByText('Saved.', { exact: true }).waitFor()
    expect((await get(`/api/v1/packages/${packageId}?type=DETAILED`)).flags).toEqual(['FRAGILE'])
    expect(await page.getByRole('list', { name: 'Flags' }).textContent()).toContain('Fragile')
    await context.close()
  })
})
