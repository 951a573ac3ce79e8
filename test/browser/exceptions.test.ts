import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { DESKTOP, expectAccessible, signIn, useConsole } from './support.js'

// Issue 30.3 in the console: the dashboard's counts per kind, and the Exceptions screen worked from
// the keyboard (a kind's count filters the list, the next action is a link to where it is done), at
// a laptop's size and a phone's.

const h = useConsole()
let client: TestClient
const clerk = { email: 'clerk@exceptions.example', password: 'clerk password 123' }
const PHONE = { width: 390, height: 844 }
const DAMAGED = '1Z999AA10123456784'
const UNKNOWN = 'HELLOWORLD7'

beforeAll(async () => {
  client = await h.t.newClient('exceptions')
  const a = api(h.t, client)
  const locationId = await a.location('Lobby')
  const siteId = await a.site({ type: 'site', name: 'Lobby', locationId, primary: true })
  const ada = (await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Ada Lovelace' })).contactId
  const add = (pkg: Record<string, unknown>) =>
    a.ok('POST', '/api/v1/packages', {
      package: { receiver: { contactId: ada }, ...pkg },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: siteId } },
    })
  await add({ trackingNumber: DAMAGED, carrier: { carrierId: 'UPS' }, damaged: true })
  await add({ trackingNumber: UNKNOWN })
  await createUser(h.t, client, { ...clerk, role: 'clerk' })
})

describe('exceptions in the console', () => {
  it('counts each kind on the dashboard, and lists, filters and opens them from the keyboard', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { context, page } = await h.open(viewport)
      await signIn(page, clerk.email, clerk.password)
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor()
      const counts = page.getByRole('region', { name: /^Exceptions/ })
      await counts.getByRole('link', { name: 'Damaged: 1' }).waitFor()
      await counts.getByRole('link', { name: 'Unknown format: 1' }).waitFor()
      await expectAccessible(page, `dashboard with exceptions ${viewport.width}`)

      // From the dashboard's count to its list, by the keyboard.
      await counts.getByRole('link', { name: 'Damaged: 1' }).focus()
      await page.keyboard.press('Enter')
      await page.getByRole('heading', { name: 'Exceptions', exact: true }).waitFor()
      const items = page.getByTestId('exception')
      await expect.poll(() => items.count()).toBe(1)
      expect(await items.first().innerText()).toContain(DAMAGED)
      expect(await page.getByRole('button', { name: 'Damaged: 1' }).getAttribute('aria-pressed')).toBe('true')

      // The kind's button again shows every kind; Unknown format's shows it alone.
      await page.getByRole('button', { name: 'Damaged: 1' }).focus()
      await page.keyboard.press('Enter')
      await expect.poll(() => items.count()).toBe(2)
      await page.getByRole('button', { name: 'Unknown format: 1' }).focus()
      await page.keyboard.press('Space')
      await expect.poll(() => items.count()).toBe(1)
      expect(await items.first().innerText()).toContain(UNKNOWN)
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true)
      await expectAccessible(page, `exceptions ${viewport.width}`)

      // Its next action: open the package, by Tab and Enter.
      const open = page.getByRole('link', { name: `Open the package (Unknown format: ${UNKNOWN})` })
      await open.focus()
      await page.keyboard.press('Enter')
      await page.getByText(UNKNOWN).first().waitFor()
      expect(page.url()).toMatch(/\/console\/packages\//)
      await context.close()
    }
    expect(h.pageErrors).toEqual([])
  })
})
