import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { DESKTOP, TABLET, expectAccessible, screenshot, signIn, useConsole } from './support.js'

// The front desk in Chromium, against the real app on a real database: what issue 18 asks the
// console to prove on every CI run.

const GS = '\x1d'
const RS = '\x1e'
const EOT = '\x04'
const UPS = '1Z999AA10123456784'
/** A FedEx 2D label (ISO 15434) whose ship-to is JOHN DOE: the decode matches the contact. */
const FEDEX_2D = `[)>${RS}01${GS}02${GS}38017${GS}840${GS}01${GS}986578788855${GS}FDEB${GS}123456789${GS}200${GS}${GS}1/2${GS}7.00LB${GS}N${GS}9185 GRANT AVE${GS}COLLIERVILLE${GS}TN${RS}06${GS}10ZED008${GS}11ZJOHN DOE${GS}12Z9015551234${RS}${EOT}`
const FEDEX_NUMBER = '986578788855'

const h = useConsole()
let client: TestClient
let hq: string
let ada: string
let johnDoe: string
let internal: string
const clerk = { email: 'clerk@desk.example', password: 'clerk password 123' }
const admin = { email: 'admin@desk.example', password: 'admin password 123' }

beforeAll(async () => {
  client = await h.t.newClient('front-desk')
  const a = api(h.t, client)
  const locationId = await a.location('Tower')
  hq = await a.site({ type: 'site', name: 'HQ', locationId, primary: true })
  ada = (
    await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Ada Lovelace', email: 'ada@example.com' })
  ).contactId
  johnDoe = (await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'John Doe' })).contactId
  await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Grace Hopper' })
  internal = (await a.ok('POST', '/api/v1/trackingNumbers', undefined, 200)).trackingNumber
  await createUser(h.t, client, { ...clerk, role: 'clerk', name: 'Desk Clerk' })
  await createUser(h.t, client, { ...admin, role: 'admin', name: 'Desk Admin' })
})

const focusedId = (page: Page) => page.evaluate<string>("document.activeElement?.id ?? ''")
async function expectFocus(page: Page, id: string) {
  await expect.poll(() => focusedId(page), { timeout: 5_000 }).toBe(id)
}

/** A keyboard-wedge scan: the scanner types the text and Enter into whatever has the focus. */
async function wedgeScan(page: Page, text: string) {
  await page.keyboard.type(text)
  await page.keyboard.press('Enter')
}

async function packageOf(trackingNumber: string) {
  const res = await h.t.inject({
    method: 'GET',
    url: `/api/v1/packages/tracking/${encodeURIComponent(trackingNumber)}`,
    headers: client.auth,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

describe('the desk journey', () => {
  it('a clerk signs in, receives three parcels by scanning, finds one, hands two over with a signature; history and API agree', async () => {
    const { context, page } = await h.open(DESKTOP)
    await page.goto('/console')
    await page.getByLabel('Email').waitFor()
    await screenshot(page, 'sign-in')
    await signIn(page, clerk.email, clerk.password)
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor()
    await page.getByRole('heading', { name: 'Waiting now' }).waitFor()
    await expectAccessible(page, 'dashboard')
    await screenshot(page, 'dashboard')
    expect(await page.getByRole('link', { name: 'Admin' }).count()).toBe(0)

    // Receive: the Scan input has the focus on arrival; the location is chosen once.
    await page.getByRole('link', { name: 'Receive' }).click()
    await page.getByRole('heading', { name: 'Receive' }).waitFor()
    await expectFocus(page, 'receive-scan')
    await page.getByLabel('Location', { exact: true }).selectOption({ label: 'HQ' })
    await page.getByLabel('Shelf').fill('A-1')
    await page.getByLabel('Scan').focus()

    // 1. A UPS label: the recipient is typed ahead and picked with the keyboard.
    await wedgeScan(page, UPS)
    await expectFocus(page, 'receive-recipient')
    expect(await page.getByTestId('decoded-tracking').textContent()).toBe(UPS)
    await page.keyboard.type('Ada')
    await page.getByRole('option', { name: /Ada Lovelace/ }).waitFor()
    await expectAccessible(page, 'receive (recipient list open)')
    await screenshot(page, 'receive')
    await page.keyboard.press('Enter')
    await expectFocus(page, 'save-package')
    await page.keyboard.press('Enter')
    await page.getByRole('link', { name: UPS }).waitFor()
    await expectFocus(page, 'receive-scan')

    // 2. A 2D label: the decode names John Doe, a known recipient; Enter saves at once.
    await wedgeScan(page, FEDEX_2D)
    await expectFocus(page, 'save-package')
    expect(await page.getByRole('combobox', { name: 'Recipient' }).inputValue()).toBe('John Doe')
    await page.keyboard.press('Enter')
    await page.getByRole('link', { name: FEDEX_NUMBER }).waitFor()
    await expectFocus(page, 'receive-scan')

    // 3. The desk's own label (an internal number), for Ada too.
    await wedgeScan(page, internal)
    await expectFocus(page, 'receive-recipient')
    await page.keyboard.type('Ada L')
    await page.getByRole('option', { name: /Ada Lovelace/ }).waitFor()
    await page.keyboard.press('Enter')
    await expectFocus(page, 'save-package')
    await page.keyboard.press('Enter')
    await page.getByRole('link', { name: internal }).waitFor()
    await expectFocus(page, 'receive-scan')

    // Scanning a parcel already on the shelf warns.
    await wedgeScan(page, UPS)
    await page.getByText('Already held (RECEIVED)').waitFor()
    await page.getByRole('button', { name: 'Cancel' }).click()

    const first = await packageOf(UPS)
    expect(first).toMatchObject({
      receiver: { contactId: ada },
      receiveClerk: clerk.email,
      currentLocation: { inboundSiteId: hq },
      packageLocation: 'A-1',
    })
    expect((await packageOf(FEDEX_NUMBER)).receiver).toMatchObject({ contactId: johnDoe })

    // Find one: Packages, tracking number ends with.
    await page.getByRole('link', { name: 'Packages', exact: true }).click()
    await page.getByRole('heading', { name: 'Packages' }).waitFor()
    await page.getByLabel('Search packages').fill('6784')
    await page.getByLabel('Search packages').press('Enter')
    await page.getByText('1 package', { exact: true }).waitFor()
    await expectAccessible(page, 'packages')
    await screenshot(page, 'packages')
    await page.getByRole('link', { name: UPS }).click()
    await page.getByRole('heading', { name: `Package ${UPS}` }).waitFor()
    await page.getByRole('heading', { name: 'History' }).waitFor()
    expect(await page.getByTestId('package-status').textContent()).toBe('RECEIVED')

    // Hand two over: Ada's parcels, found by her name and by the pickup code they share, collected
    // by Ada, signed on the pad.
    const code = first.pickupCode as string
    expect(code).toMatch(/^[2-9A-Z]{6}$/)
    expect((await packageOf(internal)).pickupCode).toBe(code)
    await page.getByRole('link', { name: 'Hand over' }).click()
    await page.getByRole('heading', { name: 'Hand over' }).waitFor()
    const find = page.getByRole('combobox', { name: 'Pickup code or recipient' })
    await find.fill('Ada')
    await page.getByRole('option', { name: /Ada Lovelace/ }).click()
    await page.getByRole('checkbox', { name: new RegExp(UPS) }).waitFor()
    expect(await page.getByRole('checkbox').count()).toBe(2)
    await find.fill('')
    await find.pressSequentially(`${code.slice(0, 3)}-${code.slice(3).toLowerCase()}`)
    await find.press('Enter')
    await page.getByRole('checkbox', { name: new RegExp(`${UPS}.*code ${code}`) }).waitFor()
    expect(await page.getByRole('checkbox', { name: new RegExp(internal) }).isChecked()).toBe(true)
    expect(await page.getByRole('checkbox', { name: new RegExp(FEDEX_NUMBER) }).count()).toBe(0)
    expect(await page.getByRole('combobox', { name: 'Collected by' }).inputValue()).toBe('Ada Lovelace')
    // Without a signature the desk says so, and nothing is handed over.
    await page.getByRole('button', { name: 'Hand over' }).click()
    await page.getByText('The collector signs in the Signature box.').waitFor()
    const pad = await page.getByRole('img', { name: 'Signature' }).boundingBox()
    expect(pad).not.toBeNull()
    await page.mouse.move(pad!.x + 30, pad!.y + 100)
    await page.mouse.down()
    for (let i = 1; i <= 12; i++) await page.mouse.move(pad!.x + 30 + i * 25, pad!.y + 100 + (i % 2 ? -30 : 30))
    await page.mouse.up()
    await expectAccessible(page, 'hand over')
    await screenshot(page, 'hand-over')
    await page.getByRole('button', { name: 'Hand over' }).click()
    await page.getByText('Handed over 2 parcels to Ada Lovelace').waitFor()

    // The API shows it: one pickup, both delivered to Ada by the signed-in clerk, the signature on the hand-over.
    const delivered: Array<{ packageId: string; pickupId: string; images: Array<{ imageType: string }> }> = []
    for (const number of [UPS, internal]) {
      const record = await packageOf(number)
      expect(record).toMatchObject({
        currentStatus: 'DELIVERED',
        givenTo: { contactId: ada },
        deliveryClerk: clerk.email,
      })
      const history = await h.t.inject({
        method: 'GET',
        url: `/api/v1/packages/${record.packageId}?type=ACTIVITIES`,
        headers: client.auth,
      })
      const activities = history.json().activities
      expect(activities.map((x: { status: string }) => x.status)).toEqual(['RECEIVED', 'DELIVERED'])
      expect(activities[1]).toMatchObject({ userName: clerk.email, pickupId: expect.any(String) })
      delivered.push({ packageId: record.packageId, ...activities[1] })
    }
    expect(delivered[0]!.pickupId).toBe(delivered[1]!.pickupId)
    const signed = delivered.filter((d) => d.images.some((i) => i.imageType === 'SIGNATURE'))
    expect(signed).toHaveLength(1)
    const pickup = await h.t.inject({
      method: 'GET',
      url: `/api/v1/pickups/${delivered[0]!.pickupId}`,
      headers: client.auth,
    })
    expect(pickup.json()).toMatchObject({
      clerk: clerk.email,
      images: [expect.objectContaining({ imageType: 'SIGNATURE' })],
    })
    expect(pickup.json().packageIds.sort()).toEqual(delivered.map((d) => d.packageId).sort())
    expect((await packageOf(FEDEX_NUMBER)).currentStatus).toBe('RECEIVED')

    // And the History timeline shows it, the signature image with it.
    await page.goto(`/console/packages/${signed[0]!.packageId}`)
    await page.getByRole('heading', { name: 'History' }).waitFor()
    const timeline = page.getByRole('list', { name: 'History' })
    await timeline.getByText('DELIVERED').waitFor()
    const signature = timeline.getByRole('img', { name: 'signature image' })
    expect(await signature.count()).toBe(1)
    // The image itself loads (its bytes from the API, not the console page in its place).
    const loadedWidth = () =>
      signature.evaluate((el) => {
        const img = el as { complete?: boolean; naturalWidth?: number }
        return img.complete ? (img.naturalWidth ?? 0) : 0
      })
    await expect.poll(loadedWidth, { timeout: 5000 }).toBeGreaterThan(0)
    // The clerk by name (issue 25 item 5), with the account that wrote it.
    expect(await timeline.textContent()).toContain(`by Desk Clerk (${clerk.email})`)
    expect(await timeline.textContent()).toContain(`Pickup ${delivered[0]!.pickupId}`)
    await expectAccessible(page, 'package')
    await screenshot(page, 'package')

    expect(h.elsewhere).toEqual([])
    expect(h.pageErrors).toEqual([])
    await context.close()
  })

  it('an admin creates a site and a clerk (at tablet size), and the API errors show next to their field', async () => {
    const { context, page } = await h.open(TABLET)
    await signIn(page, admin.email, admin.password)
    await page.getByRole('link', { name: 'Admin' }).click()
    await page.getByRole('heading', { name: 'Admin: Sites' }).waitFor()
    await page.getByLabel('Site name').fill('Floor 2')
    await page.getByLabel('Type').selectOption('floor')
    await page.getByLabel('Parent site').selectOption({ label: 'HQ' })
    await page.getByRole('button', { name: 'Create site' }).click()
    await page.getByText('Site Floor 2 created.').waitFor()
    await page.locator('.tree').getByText('Floor 2', { exact: true }).waitFor()
    await expectAccessible(page, 'admin sites')
    await screenshot(page, 'admin-sites')

    await page.getByRole('link', { name: 'Users' }).click()
    await page.getByRole('heading', { name: 'Admin: Users' }).waitFor()
    await page.getByRole('cell', { name: clerk.email, exact: true }).waitFor()
    // The API refuses a password that is too short: the message is under "Password".
    await page.getByLabel('Email').fill('new.clerk@desk.example')
    await page.getByLabel('Password').fill('short')
    await page.getByRole('button', { name: 'Create user' }).click()
    const password = page.getByLabel('Password')
    await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true')
    const describedBy = (await password.getAttribute('aria-describedby')) ?? ''
    expect(await page.locator(`[id="${describedBy.split(' ')[0]}"]`).textContent()).toMatch(/\S/)
    await page.getByLabel('Password').fill('a long enough password')
    await page.getByRole('button', { name: 'Create user' }).click()
    await page.getByText('User new.clerk@desk.example created.').waitFor()
    await page.getByRole('cell', { name: 'new.clerk@desk.example', exact: true }).waitFor()
    await page.getByRole('button', { name: 'New password for new.clerk@desk.example' }).click()
    const oneTime = await page.getByText(/^New one-time password for new\.clerk@desk\.example: /).textContent()
    const newClerkPassword = oneTime!.split(': ')[1]!.trim()
    await expectAccessible(page, 'admin users')
    await screenshot(page, 'admin-users')

    for (const [section, heading] of [
      ['contacts', 'Contacts'],
      ['customfields', 'Custom fields'],
      ['carriers', 'Carriers'],
    ]) {
      await page.getByRole('link', { name: heading, exact: true }).click()
      await page.getByRole('heading', { name: `Admin: ${heading}` }).waitFor()
      await page.getByRole('table').first().waitFor()
      await expectAccessible(page, `admin ${section}`)
      await screenshot(page, `admin-${section}`)
    }

    // The new clerk signs in with the one-time password, and must choose their own first (issue 25.6).
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByText('You are signed out.').waitFor()
    await signIn(page, 'new.clerk@desk.example', newClerkPassword)
    await page.getByRole('heading', { name: 'Choose your password' }).waitFor()
    await page.getByLabel('Generated password').fill(newClerkPassword)
    await page.getByLabel('New password', { exact: true }).fill('the new clerk chose this')
    await page.getByLabel('New password again').fill('the new clerk chose this')
    await page.getByRole('button', { name: 'Set my password' }).click()
    await page.getByText('new.clerk@desk.example (clerk)').waitFor()
    expect(h.elsewhere).toEqual([])
    expect(h.pageErrors).toEqual([])
    await context.close()
  })
})
