import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { DESKTOP, expectAccessible, signIn, useConsole } from './support.js'

// Issue 29's quiet hours per site in Chromium: an admin sets a building's window in Admin › Sites
// beside its holding fee, a half-filled window is refused under its field, and emptied it clears.

const h = useConsole()
let client: TestClient
let buildingId: string
const admin = { email: 'admin@quiet.example', password: 'admin password 123' }

beforeAll(async () => {
  client = await h.t.newClient('site-quiet-hours')
  const a = api(h.t, client)
  const locationId = await a.location('Campus')
  const hq = await a.site({ type: 'site', name: 'Mailroom 1', locationId, primary: true })
  buildingId = await a.site({ type: 'building', name: 'Tower', parent: hq })
  await createUser(h.t, client, { ...admin, role: 'admin' })
})

async function site() {
  const res = await h.t.inject({ method: 'GET', url: '/api/v1/inboundsites?limit=200', headers: client.auth })
  expect(res.statusCode, res.body).toBe(200)
  return (res.json().inboundSites as Array<{ inboundSiteId: string; quietHours?: unknown }>).find(
    (s) => s.inboundSiteId === buildingId,
  )!
}

describe('a site’s quiet hours in Admin › Sites', () => {
  it('sets them, refuses one time without the other under its field, and clears them', async () => {
    const { page } = await h.open(DESKTOP)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/sites')
    await page.getByRole('button', { name: 'Edit Tower' }).click()
    const edit = page.getByRole('form', { name: 'Edit site Tower' })
    const from = edit.getByLabel('Quiet from')
    const until = edit.getByLabel('Quiet until')
    await from.fill('22:00')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(() => until.getAttribute('aria-invalid')).toBe('true')
    await edit.getByText('Enter both times, or neither.').waitFor()
    expect(await site()).not.toHaveProperty('quietHours')
    await expectAccessible(page, 'admin site edit (quiet hours refused)')

    await until.fill('07:30')
    await until.press('Enter')
    await page.getByText('Site Tower saved.').waitFor()
    expect((await site()).quietHours).toEqual({ start: '22:00', end: '07:30' })

    await page.getByRole('button', { name: 'Edit Tower' }).click()
    await expect.poll(() => from.inputValue()).toBe('22:00')
    await from.fill('')
    await until.fill('')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await edit.waitFor({ state: 'detached' })
    expect(await site()).not.toHaveProperty('quietHours')
  })
})
