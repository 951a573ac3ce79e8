import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { DESKTOP, expectAccessible, signIn, useConsole } from './support.js'

// Receive files what it saves on shelves (issue 30.1), in Chromium against the real app: a shelf
// label scanned after a save files that save's parcels, one scanned first starts a run; and the
// outbox (a save the server answers later) never moves a parcel onto a shelf it was not meant for.

const h = useConsole()
let client: TestClient
let hq: string
type Shelf = { inboundSiteId: string; code: string }
let shelfA: Shelf
let shelfB: Shelf
const numbers: string[] = []
const clerk = { email: 'clerk@desk-shelves.example', password: 'clerk password 123' }

beforeAll(async () => {
  client = await h.t.newClient('desk-shelves')
  const a = api(h.t, client)
  const locationId = await a.location('Tower')
  hq = await a.site({ type: 'site', name: 'HQ', locationId, primary: true })
  shelfA = await a.ok('PUT', `/api/v1/shelves/${await a.site({ type: 'shelf', name: 'Shelf A', parent: hq })}`, {}, 201)
  shelfB = await a.ok('PUT', `/api/v1/shelves/${await a.site({ type: 'shelf', name: 'Shelf B', parent: hq })}`, {}, 201)
  await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Grace Hopper' })
  for (let i = 0; i < 9; i++)
    numbers.push((await a.ok('POST', '/api/v1/trackingNumbers', undefined, 200)).trackingNumber)
  await createUser(h.t, client, { ...clerk, role: 'clerk', name: 'Desk Clerk' })
})

const focusedId = (page: Page) => page.evaluate<string>("document.activeElement?.id ?? ''")
const expectFocus = (page: Page, id: string) => expect.poll(() => focusedId(page), { timeout: 5_000 }).toBe(id)

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
const siteOf = async (trackingNumber: string) => (await packageOf(trackingNumber)).currentLocation.inboundSiteId

async function openReceive() {
  const { page } = await h.open(DESKTOP)
  await page.goto('/console')
  await signIn(page, clerk.email, clerk.password)
  await page.getByRole('link', { name: 'Receive' }).click()
  await page.getByRole('heading', { name: 'Receive' }).waitFor()
  await page.getByLabel('Location', { exact: true }).selectOption({ label: 'HQ' })
  await page.getByLabel('Shelf').fill('A-1')
  await page.getByLabel('Scan').focus()
  return page
}

/** Scan, pick Grace Hopper, Enter to save; `landed`: wait until the server holds it. */
async function receiveFor(page: Page, number: string, landed = true) {
  await wedgeScan(page, number)
  await expectFocus(page, 'receive-recipient')
  await page.keyboard.type('Grace')
  await page.getByRole('option', { name: /Grace Hopper/ }).waitFor()
  await page.keyboard.press('Enter')
  await expectFocus(page, 'save-package')
  await page.keyboard.press('Enter')
  if (landed) await page.getByRole('link', { name: number }).waitFor()
  await expectFocus(page, 'receive-scan')
}

describe('Receive files parcels on shelves', () => {
  it('parcel then shelf files that parcel; shelf then parcels is a run, until Done', async () => {
    const page = await openReceive()
    const [before, onShelf, inRun, nextInRun] = numbers as [string, string, string, string]
    await receiveFor(page, before)
    const shelfLog = page.getByTestId('shelf-log')
    // Scan a parcel, save, scan the shelf: that parcel (only: not the ones saved before) is filed there.
    await receiveFor(page, onShelf)
    await wedgeScan(page, shelfA.code)
    await expect.poll(() => shelfLog.textContent()).toContain(`${onShelf} filed on Shelf A`)
    // Said too, for a screen reader.
    await expect.poll(() => page.getByTestId('announce').textContent()).toContain(`${onShelf} filed on Shelf A`)
    await expectFocus(page, 'receive-scan')
    expect(await packageOf(onShelf)).toMatchObject({
      currentLocation: { inboundSiteId: shelfA.inboundSiteId },
      packageLocation: 'Shelf A',
    })
    expect(await packageOf(before)).toMatchObject({ currentLocation: { inboundSiteId: hq }, packageLocation: 'A-1' })
    // The shelf first, then a run: each parcel saved is filed there, until Done.
    await wedgeScan(page, shelfA.code.toLowerCase())
    await expect.poll(() => page.getByTestId('shelf-state').textContent()).toContain('Filing on Shelf A')
    await expectAccessible(page, 'receive (filing on a shelf)')
    await receiveFor(page, inRun)
    await receiveFor(page, nextInRun)
    for (const number of [inRun, nextInRun]) {
      await expect.poll(() => shelfLog.textContent()).toContain(`${number} filed on Shelf A`)
      expect(await packageOf(number)).toMatchObject({
        currentLocation: { inboundSiteId: shelfA.inboundSiteId },
        packageLocation: 'Shelf A',
      })
    }
    await page.getByRole('button', { name: 'Done filing' }).click()
    await expectFocus(page, 'receive-scan')
    // A label no shelf has is said so, and never read as a tracking number.
    await wedgeScan(page, 'SHELF-ZZZZZZ')
    await page.getByText('No shelf has the label SHELF-ZZZZZZ.').waitFor()
    expect(await page.getByTestId('decoded-tracking').count()).toBe(0)
  })

  it('a shelf scanned before the server has the save files that save there once it lands, and starts no run', async () => {
    const page = await openReceive()
    const [late, next, third] = numbers.slice(4) as [string, string, string]
    // The server answers the save only when let: the shelf label is scanned while it waits.
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    let holding = true
    await page.route('**/api/v1/packages', async (route) => {
      if (holding && route.request().method() === 'POST') await held
      await route.continue()
    })
    await receiveFor(page, late, false)
    await wedgeScan(page, shelfA.code)
    await expect.poll(() => page.getByTestId('shelf-unsent').textContent()).toContain('1 parcel to be filed')
    expect(await page.getByTestId('shelf-state').textContent()).not.toContain('Filing on')
    holding = false
    release()
    await page.getByRole('link', { name: late }).waitFor()
    await expect.poll(() => siteOf(late)).toBe(shelfA.inboundSiteId)
    await expect.poll(() => page.getByTestId('announce').textContent()).toContain(`${late} filed on Shelf A`)

    // The next parcel is not filed on A: no run began. Its own shelf label (B) files it there.
    await receiveFor(page, next)
    await wedgeScan(page, shelfB.code)
    await expect.poll(() => siteOf(next)).toBe(shelfB.inboundSiteId)
    expect(await siteOf(late)).toBe(shelfA.inboundSiteId)
    // And a parcel saved after that waits for its own label (B made no run either).
    await receiveFor(page, third)
    await expect.poll(() => page.getByTestId('shelf-state').textContent()).toContain('1 parcel waiting')
    expect(await siteOf(third)).toBe(hq)
    await wedgeScan(page, shelfA.code)
    await expect.poll(() => siteOf(third)).toBe(shelfA.inboundSiteId)
    expect(await siteOf(next)).toBe(shelfB.inboundSiteId)
  })

  it('what an earlier page left unsent is filed on no shelf scanned later', async () => {
    const page = await openReceive()
    const [leftOver, inRun] = numbers.slice(7) as [string, string]
    // The network drops: the save waits in the outbox, and the page is left (reloaded) with it unsent.
    await page.route('**/api/v1/packages', (route) =>
      route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.continue(),
    )
    await receiveFor(page, leftOver, false)
    await page.getByRole('button', { name: 'Send now' }).waitFor()
    await page.reload()
    await page.getByRole('heading', { name: 'Receive' }).waitFor()
    await page.getByLabel('Scan').focus()
    // A run on A begins on this page; then the network is back and the earlier save lands.
    await wedgeScan(page, shelfA.code)
    await expect.poll(() => page.getByTestId('shelf-state').textContent()).toContain('Filing on Shelf A')
    await page.unroute('**/api/v1/packages')
    await page.getByRole('button', { name: 'Send now' }).click()
    await page.getByRole('link', { name: leftOver }).waitFor()
    // The run files what is saved in it, and only that.
    await page.getByLabel('Scan').focus()
    await receiveFor(page, inRun)
    await expect.poll(() => siteOf(inRun)).toBe(shelfA.inboundSiteId)
    expect(await packageOf(leftOver)).toMatchObject({ currentLocation: { inboundSiteId: hq }, packageLocation: 'A-1' })
  })
})
