import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { expectAccessible, screenshot, signIn, useConsole } from './support.js'

// Issue 25.9 for the shell and the screens around the desk (sign-in, dashboard, packages, exceptions, account,
// every admin section, the admin pages refused to a clerk) at a laptop's size and a phone's: no
// serious or critical axe violation, nothing scrolls sideways, every control is big enough for a
// finger on the phone, and a navigation puts the focus in the new screen.

const h = useConsole()
let client: TestClient
const LAPTOP = { width: 1366, height: 768 }
const PHONE = { width: 390, height: 844 }
const admin = { email: 'admin@a11y.example', password: 'admin password 123' }
const clerk = { email: 'clerk@a11y.example', password: 'clerk password 123' }

const ADMIN_SECTIONS = [
  'sites',
  'users',
  'contacts',
  'customfields',
  'carriers',
  'clients',
  'webhooks',
  'notifications',
  'directory',
  'sso',
]

beforeAll(async () => {
  client = await h.t.newClient('a11y')
  const a = api(h.t, client)
  const locationId = await a.location('Campus')
  const hq = await a.site({ type: 'site', name: 'Mailroom 1', locationId, primary: true })
  await a.site({ type: 'shelf', name: 'Shelf A-3', parent: hq })
  const ada = await a.ok('POST', '/api/v1/contacts', {
    contactType: 'RECEIVER',
    name: 'Ada Lovelace',
    email: 'ada.lovelace.with.a.long.address@example.org',
  })
  await a.ok('POST', '/api/v1/packages', {
    package: { trackingNumber: '1Z999AA10123456784', receiver: { contactId: ada.contactId } },
    lastActivity: { status: 'RECEIVED' },
  })
  await createUser(h.t, client, { ...admin, role: 'admin' })
  await createUser(h.t, client, { ...clerk, role: 'clerk' })
})

/** Nothing wider than the window: no sideways scroll of the page. */
const sideways = (page: Page) =>
  page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')

/** The visible controls a finger must hit that are smaller than 24×24 px (WCAG 2.5.8), named. */
const tooSmall = (page: Page) =>
  page.evaluate<
    string[]
  >(`[...document.querySelectorAll('main button, main input, main select, main textarea, header a, header button, nav a')]
    .filter((el) => el.offsetParent !== null)
    .filter((el) => { const box = el.getBoundingClientRect(); return box.height < 24 || box.width < 24 })
    .map((el) => el.tagName.toLowerCase() + ' ' + (el.id || el.textContent.trim().slice(0, 30)))`)

async function check(page: Page, screen: string, phone: boolean) {
  await expectAccessible(page, screen)
  expect(await sideways(page), `${screen}: sideways scroll`).toBeLessThanOrEqual(0)
  if (phone) expect(await tooSmall(page), `${screen}: controls too small for a finger`).toEqual([])
}

describe.each([
  ['laptop', LAPTOP, false],
  ['phone', PHONE, true],
] as const)('at %s size', (size, viewport, phone) => {
  it('sign-in, dashboard, packages, account and every admin section pass', async () => {
    const { page } = await h.open(viewport)
    await page.goto('/console')
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    await check(page, `sign in (${size})`, phone)
    await signIn(page, admin.email, admin.password)
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor()
    await page.waitForLoadState('networkidle')
    await check(page, `dashboard (${size})`, phone)
    for (const [path, heading] of [
      ['/console/packages', 'Packages'],
      ['/console/exceptions', 'Exceptions'],
      ['/console/account', 'Account'],
    ] as const) {
      await page.goto(path)
      await page.getByRole('heading', { name: heading, exact: true }).waitFor()
      await page.waitForLoadState('networkidle')
      await check(page, `${heading} (${size})`, phone)
    }
    for (const section of ADMIN_SECTIONS) {
      await page.goto(`/console/admin/${section}`)
      await page.getByRole('heading', { name: /^Admin: / }).waitFor()
      await page.waitForLoadState('networkidle')
      await check(page, `admin ${section} (${size})`, phone)
      await screenshot(page, `a11y-admin-${section}-${size}`)
    }
    expect(h.pageErrors).toEqual([])
  })

  it('the not-allowed page of a clerk passes; a navigation puts the focus in the new screen', async () => {
    const { page } = await h.open(viewport)
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/admin/users')
    await page.getByRole('heading', { name: 'Not allowed' }).waitFor()
    await check(page, `admin refused (${size})`, phone)

    await page.goto('/console')
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor()
    for (const [link, heading] of [
      ['Packages', 'Packages'],
      ['Account', 'Account'],
      ['Dashboard', 'Dashboard'],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click()
      await page.getByRole('heading', { name: heading, exact: true }).waitFor()
      await expect
        .poll(() =>
          page.evaluate<boolean>("document.getElementById('main')?.contains(document.activeElement) ?? false"),
        )
        .toBe(true)
    }
  })
})
