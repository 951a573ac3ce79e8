import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api, trackingNumber } from '../support/factories.js'
import { DESKTOP, expectAccessible, signIn, useConsole } from './support.js'

// Issue 30.1 in Chromium: a clerk with a keyboard-wedge scanner files parcels by scanning shelf
// labels (parcel → shelf, and shelf → a run of parcels), moves one, and audits a shelf.

const h = useConsole()
let client: TestClient
let shelfA: { inboundSiteId: string; code: string }
let shelfB: { inboundSiteId: string; code: string }
const parcels: string[] = []
const clerk = { email: 'clerk@shelves.example', password: 'clerk password 123' }
const PHONE = { width: 390, height: 844 }
const boss = { email: 'boss@shelves.example', password: 'boss password 123' }
let bossId: string

beforeAll(async () => {
  client = await h.t.newClient('shelves-desk')
  const a = api(h.t, client)
  const locationId = await a.location('Tower')
  const hq = await a.site({ type: 'site', name: 'HQ', locationId, primary: true })
  const a1 = await a.site({ type: 'shelf', name: 'Shelf A', parent: hq })
  const b1 = await a.site({ type: 'shelf', name: 'Shelf B', parent: hq })
  shelfA = await a.ok('PUT', `/api/v1/shelves/${a1}`, {}, 201)
  shelfB = await a.ok('PUT', `/api/v1/shelves/${b1}`, { kind: 'bin' }, 201)
  const ada = await a.contact('RECEIVER', 'Ada Lovelace')
  for (let i = 0; i < 4; i++) {
    const tn = trackingNumber('1ZDESK')
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: tn, receiver: { contactId: ada } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: hq } },
    })
    parcels.push(tn)
  }
  await createUser(h.t, client, { ...clerk, role: 'clerk', name: 'Shelf Clerk' })
  bossId = (await createUser(h.t, client, { ...boss, role: 'admin', name: 'Shelf Boss' })).userId
})

/** A keyboard-wedge scan: the scanner types the text and Enter into whatever has the focus. */
async function wedgeScan(page: Page, text: string) {
  await page.keyboard.type(text)
  await page.keyboard.press('Enter')
}

async function siteOf(tn: string) {
  const res = await h.t.inject({
    method: 'GET',
    url: `/api/v1/packages/tracking/${encodeURIComponent(tn)}`,
    headers: client.auth,
  })
  return res.json().currentLocation.inboundSiteId as string
}

describe('shelves at the desk', () => {
  it('files parcels scanned before a shelf label, then a run after one, moves one, and audits a shelf', async () => {
    const { context, page } = await h.open(DESKTOP)
    await page.goto('/console')
    await signIn(page, clerk.email, clerk.password)
    await page.getByRole('link', { name: 'Shelves' }).click()
    await page.getByRole('heading', { name: 'File parcels' }).waitFor()
    await expect.poll(() => page.evaluate("document.activeElement?.id ?? ''")).toBe('shelf-scan')
    const state = page.getByTestId('shelf-state')

    // Two parcels, then the shelf label: both filed on Shelf A.
    await wedgeScan(page, parcels[0]!)
    await wedgeScan(page, parcels[1]!)
    await expect.poll(() => state.textContent()).toContain('2 parcels waiting')
    await wedgeScan(page, shelfA.code)
    await expect.poll(() => page.getByTestId('shelf-log').textContent()).toContain(`${parcels[1]} filed on Shelf A`)
    expect(await siteOf(parcels[0]!)).toBe(shelfA.inboundSiteId)
    expect(await siteOf(parcels[1]!)).toBe(shelfA.inboundSiteId)

    // A shelf label first (lower case, as some scanners type), then a run of parcels: each filed at once.
    await wedgeScan(page, shelfB.code.toLowerCase())
    await expect.poll(() => state.textContent()).toContain('Filing on Shelf B')
    await wedgeScan(page, parcels[2]!)
    await expect.poll(() => siteOf(parcels[2]!)).toBe(shelfB.inboundSiteId)
    await page.getByRole('button', { name: 'Done' }).click()

    // Move: scan a parcel, then the other shelf.
    await page.getByLabel('Scan').focus()
    await wedgeScan(page, parcels[0]!)
    await wedgeScan(page, shelfB.code)
    await expect.poll(() => siteOf(parcels[0]!)).toBe(shelfB.inboundSiteId)
    // An unknown label says so.
    await wedgeScan(page, 'SHELF-ZZZZZZ')
    await page.getByText('No shelf has the label SHELF-ZZZZZZ.').waitFor()
    await expectAccessible(page, 'shelves-file')

    // Audit Shelf B: parcels[0] and [2] are recorded there; [1] (on Shelf A) is found there instead of [2].
    await page.getByRole('link', { name: 'Audit a shelf' }).click()
    await page.getByRole('heading', { name: 'Audit a shelf' }).waitFor()
    await page.getByLabel('Scan').focus()
    await wedgeScan(page, shelfB.code)
    await expect.poll(() => page.getByTestId('audit-state').textContent()).toContain('Auditing Shelf B')
    await wedgeScan(page, parcels[0]!)
    await wedgeScan(page, parcels[1]!)
    await expect.poll(() => page.getByTestId('audit-state').textContent()).toContain('2 scanned')
    await page.getByRole('button', { name: 'Finish audit' }).click()
    await expect
      .poll(() => page.getByTestId('audit-summary').textContent())
      .toContain('1 found, 1 missing, 1 misplaced')
    expect(await page.getByTestId('audit-missing').textContent()).toContain(parcels[2])
    expect(await page.getByTestId('audit-misplaced').textContent()).toContain(parcels[1])
    await expectAccessible(page, 'shelves-audit')
    // The misplaced parcel is filed where it was found.
    await page.getByRole('button', { name: `File on Shelf B (${parcels[1]})` }).click()
    await expect.poll(() => siteOf(parcels[1]!)).toBe(shelfB.inboundSiteId)

    // Labels: the list with its links, and a clerk cannot make shelves.
    await page.getByRole('link', { name: 'Labels' }).click()
    await page.getByTestId('shelf-list').waitFor()
    expect(await page.getByTestId('shelf-list').textContent()).toContain(shelfA.code)
    expect(await page.getByRole('heading', { name: 'Give a site a shelf label' }).count()).toBe(0)
    const pdf = await page
      .getByRole('link', { name: 'PDF 4×6 in for Shelf A' })
      .evaluate((a) => fetch((a as unknown as { href: string }).href).then((r) => r.headers.get('content-type')))
    expect(pdf).toBe('application/pdf')
    expect(h.pageErrors).toEqual([])
    await context.close()
  })

  it('shows a manager the period: charts with their data tables and CSV links', async () => {
    const { context, page } = await h.open(DESKTOP)
    await page.goto('/console')
    await signIn(page, clerk.email, clerk.password)
    await page.getByRole('link', { name: 'Reports' }).click()
    await page.getByRole('heading', { name: 'Received and handed over' }).waitFor()
    // Reports count a parcel on its site's own day: Tower is in New York (the factory's zone), whose
    // date is yesterday's UTC one for five hours after midnight UTC.
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(h.t.clock.now())
    await page.getByLabel('From', { exact: true }).fill(day)
    await page.getByLabel('To', { exact: true }).fill(day)
    await page.getByRole('button', { name: 'Show' }).click()
    // The four parcels of the beforeAll arrived today: the table under the chart says so.
    await expect.poll(() => page.getByTestId('volume-table').textContent()).toContain(`${day}40`)
    expect(await page.locator('figure.chart svg rect').count()).toBeGreaterThan(0)
    const csv = await page
      .getByRole('link', { name: 'CSV of received and handed over' })
      .evaluate((a) => fetch((a as unknown as { href: string }).href).then((r) => r.text()))
    expect(csv.split('\r\n')[0]).toBe('period,site,received,handedOver')
    // The four parcels still wait: the oldest first, in the table and its CSV.
    await expect.poll(() => page.getByTestId('oldest-table').textContent()).toContain(parcels[0])
    const csvOf = (label: string) =>
      page
        .getByRole('link', { name: `CSV of ${label}` })
        .evaluate((a) => fetch((a as unknown as { href: string }).href).then((r) => r.text()))
    const oldest = (await csvOf('oldest waiting')).split('\r\n')
    expect(oldest[0]).toBe('trackingNumber,packageId,site,status,receivedAt,waitingDays')
    expect(oldest[1]).toContain(parcels[0])
    await page.getByRole('heading', { name: 'Notifications' }).waitFor()
    expect((await csvOf('notifications')).split('\r\n')[0]).toBe('day,sent,failed')
    await expectAccessible(page, 'reports')
    // The daily summary email is an admin's choice: a clerk never sees it.
    expect(await page.getByRole('heading', { name: 'Daily summary email' }).count()).toBe(0)
    expect(h.pageErrors).toEqual([])
    await context.close()
  })

  it('lets an admin, by keyboard at phone width, turn the daily summary email on for themselves', async () => {
    const recipients = async () => {
      const res = await h.t.inject({ method: 'GET', url: '/api/v1/reports/summary-email', headers: client.auth })
      return (res.json().recipients as { userId: string }[]).map((r) => r.userId)
    }
    expect(await recipients()).not.toContain(bossId)
    const { context, page } = await h.open(PHONE)
    await signIn(page, boss.email, boss.password)
    await page.goto('/console/reports')
    await page.getByRole('heading', { name: 'Daily summary email' }).waitFor()
    // The hour and zone it goes at (the test app's REPORT_SUMMARY_* settings).
    const { hour, timeZone } = (
      await h.t.inject({ method: 'GET', url: '/api/v1/reports/summary-email', headers: client.auth })
    ).json()
    expect(await page.getByTestId('summary-email').textContent()).toContain(
      `${String(hour).padStart(2, '0')}:00 ${timeZone}`,
    )
    const mine = page.getByRole('checkbox', { name: 'Email me the daily summary' })
    expect(await mine.isChecked()).toBe(false)
    // Keyboard only: Tab from the "Show" button until the checkbox has the focus, then Space.
    await page.getByRole('button', { name: 'Show' }).focus()
    const focused = () => page.evaluate("document.activeElement?.id ?? ''")
    for (let i = 0; i < 40 && (await focused()) !== 'summary-email-me'; i++) await page.keyboard.press('Tab')
    expect(await focused()).toBe('summary-email-me')
    await page.keyboard.press('Space')
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'daily summary' }).textContent())
      .toContain('You now get')
    expect(await recipients()).toContain(bossId)
    await expectAccessible(page, 'reports-summary-email')
    await page.reload()
    await page.getByRole('heading', { name: 'Daily summary email' }).waitFor()
    await expect.poll(() => page.getByRole('checkbox', { name: 'Email me the daily summary' }).isChecked()).toBe(true)
    expect(h.pageErrors).toEqual([])
    await context.close()
  })
})
