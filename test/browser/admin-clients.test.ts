import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { DESKTOP, TABLET, expectAccessible, screenshot, signIn, useConsole } from './support.js'

// Admin › API clients in Chromium: a new client's secret is shown once (copied with one click) and
// gets a token; rename, disable and enable; a new secret after a confirmation replaces the old one.

const h = useConsole()
let client: TestClient
const admin = { email: 'admin@clients.example', password: 'admin password 123' }

beforeAll(async () => {
  client = await h.t.newClient('clients-desk')
  await createUser(h.t, client, { ...admin, role: 'admin' })
})

let ip = 0
/** The client credentials grant with this id and secret: the token endpoint's status. */
async function tokenStatus(clientId: string, secret: string): Promise<number> {
  const res = await h.t.inject({
    method: 'POST',
    url: '/auth/api/v1/token',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
    remoteAddress: `10.8.0.${++ip}`,
  })
  return res.statusCode
}

async function clients(): Promise<Array<{ clientId: string; name: string; status: string }>> {
  const res = await h.t.inject({ method: 'GET', url: '/api/v1/clients', headers: client.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().clients
}

describe('API clients in the console', () => {
  it('creates a client and shows its secret once, with a copy button and a warning', async () => {
    const { context, page } = await h.open(DESKTOP)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.origin })
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/clients')
    await page.getByRole('heading', { name: 'Admin: API clients' }).waitFor()
    await page.getByLabel('Client name').fill('Warehouse sync')
    await page.getByRole('button', { name: 'Create API client' }).click()
    const once = page.getByRole('region', { name: 'API client Warehouse sync created.' })
    await once.waitFor()
    await once.getByText(/shown only this once/).waitFor()
    const secret = await once.getByLabel('Client secret').inputValue()
    expect(secret.length).toBeGreaterThan(20)
    await once.getByRole('button', { name: 'Copy secret' }).click()
    await once.getByText('Copied.').waitFor()
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret)
    await expectAccessible(page, 'admin API clients (secret shown)')
    await screenshot(page, 'admin-clients-secret')

    const created = (await clients()).find((c) => c.name === 'Warehouse sync')!
    expect(created.status).toBe('active')
    expect(await tokenStatus(created.clientId, secret)).toBe(200)
    // Dismissed, the secret is nowhere on the page any more.
    await once.getByRole('button', { name: 'I have copied it' }).click()
    await once.waitFor({ state: 'detached' })
    expect(await page.content()).not.toContain(secret)
    expect(h.pageErrors).toEqual([])
    await context.close()
  })

  it('renames, disables and enables a client, and a new secret (confirmed) replaces the old one', async () => {
    const created = await h.t.inject({
      method: 'POST',
      url: '/api/v1/clients',
      headers: client.auth,
      payload: { name: 'Locker bank' },
    })
    expect(created.statusCode, created.body).toBe(201)
    const { clientId, clientSecret: oldSecret } = created.json()
    const { context, page } = await h.open(TABLET)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/clients')

    await page.getByRole('button', { name: 'Edit Locker bank' }).click()
    const edit = page.getByRole('form', { name: 'Edit API client Locker bank' })
    await edit.getByLabel('Name').fill('Locker bank east')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await page.getByText('API client Locker bank east saved.').waitFor()

    await page.getByRole('button', { name: 'Disable Locker bank east' }).click()
    await page.getByRole('button', { name: 'Enable Locker bank east' }).waitFor()
    expect((await clients()).find((c) => c.clientId === clientId)).toMatchObject({
      name: 'Locker bank east',
      status: 'disabled',
    })
    await page.getByRole('button', { name: 'Enable Locker bank east' }).click()
    await page.getByRole('button', { name: 'Disable Locker bank east' }).waitFor()

    await page.getByRole('button', { name: 'New secret for Locker bank east' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    await expectAccessible(page, 'admin API clients (rotate confirmation)')
    await dialog.getByRole('button', { name: 'Yes, new secret' }).click()
    const once = page.getByRole('region', { name: 'New secret for Locker bank east.' })
    await once.waitFor()
    const newSecret = await once.getByLabel('Client secret').inputValue()
    expect(newSecret).not.toBe(oldSecret)
    expect(await tokenStatus(clientId, newSecret)).toBe(200)
    expect(await tokenStatus(clientId, oldSecret)).toBe(401)
    await expectAccessible(page, 'admin API clients (tablet)')
    await screenshot(page, 'admin-clients-rotated-tablet')
    expect(h.pageErrors).toEqual([])
    await context.close()
  })
})
