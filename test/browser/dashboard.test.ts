import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { DESKTOP, expectAccessible, signIn, useConsole } from './support.js'

// The dashboard's unclaimed list: every parcel waiting longer than the days asked, a page at a time,
// not the ten oldest (issue 25, item 9).

const h = useConsole()
let client: TestClient
const admin = { email: 'admin@dash.example', password: 'admin password 123' }
const PHONE = { width: 390, height: 844 }
const WAITING = 30

beforeAll(async () => {
  client = await h.t.newClient('dashboard')
  const a = api(h.t, client)
  const locationId = await a.location('Lobby')
  await a.site({ type: 'site', name: 'Lobby', locationId, primary: true })
  const ada = (await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Ada Lovelace' })).contactId
  for (let i = 0; i < WAITING; i++) {
    const { trackingNumber } = await a.ok('POST', '/api/v1/trackingNumbers', undefined, 200)
    await a.ok('POST', '/api/v1/packages', { package: { trackingNumber, receiver: { contactId: ada } } })
  }
  await createUser(h.t, client, { ...admin, role: 'admin' })
})

describe('the dashboard', () => {
  it('lists every parcel unclaimed past the days asked, 25 a page, oldest first', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { context, page } = await h.open(viewport)
      await signIn(page, admin.email, admin.password)
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor()
      const list = page.getByRole('region', { name: 'Oldest waiting parcels' }).getByRole('listitem')
      // Three days: none of today's parcels.
      await page.getByText('None.').waitFor()
      await page.getByLabel('Unclaimed for more than').fill('0')
      await expect.poll(() => list.count()).toBe(25)
      const first = await list.first().innerText()
      await page.getByRole('button', { name: 'Next page' }).click()
      await expect.poll(() => list.count()).toBe(WAITING - 25)
      expect(await list.first().innerText()).not.toBe(first)
      expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true)
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true)
      await expectAccessible(page, `dashboard ${viewport.width}`)
      await context.close()
    }
    expect(h.pageErrors).toEqual([])
  })
})
