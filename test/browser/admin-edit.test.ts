import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { WEBHOOK_TEST_ENV } from '../webhooks/support/helpers.js'
import { Receiver } from '../webhooks/support/receiver.js'
import { DESKTOP, TABLET, expectAccessible, screenshot, signIn, useConsole } from './support.js'

// Admin › edit and delete in Chromium: sites, custom fields, couriers, contacts and webhook configurations
// change through the console's forms, a delete asks first, and the API's refusals show under the
// field they name (a webhook's new URL without its secret).

const h = useConsole(WEBHOOK_TEST_ENV)
const rx = new Receiver()
let client: TestClient
let hq: string
const admin = { email: 'admin@edit.example', password: 'admin password 123' }

beforeAll(async () => {
  await rx.start()
  client = await h.t.newClient('admin-edit')
  const a = api(h.t, client)
  const locationId = await a.location('Campus')
  hq = await a.site({ type: 'site', name: 'Main hall', locationId, primary: true })
  await a.site({ type: 'shelf', name: 'Shelf 1', parent: hq })
  await a.site({ type: 'shelf', name: 'Old shelf', parent: hq })
  await a.ok('POST', '/api/v1/customfields', { name: 'Cost centre', dataType: 'TEXT' })
  await a.ok('POST', '/api/v1/customfields', { name: 'Fragile', dataType: 'BOOLEAN' })
  await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Ada Lovelace', phone: '555-0100' })
  await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Moved Away' })
  await a.ok('POST', '/api/v1/carriers/catalog', { name: 'Bike Run', services: ['Same hour'] })
  const used = await a.ok('POST', '/api/v1/carriers/catalog', { name: 'Van Run' })
  await a.ok('POST', '/api/v1/packages', {
    package: { trackingNumber: 'VANRUN0001', carrier: { carrierId: used.carrierId } },
    lastActivity: { status: 'RECEIVED' },
  })
  await createUser(h.t, client, { ...admin, role: 'admin' })
})
afterAll(() => rx.close())

async function get(path: string) {
  const res = await h.t.inject({ method: 'GET', url: path, headers: client.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** Confirms the delete the page asks about (a modal dialog), after checking it is accessible. */
async function confirmDelete(page: Page, screen: string) {
  const dialog = page.getByRole('dialog')
  await dialog.waitFor()
  await expectAccessible(page, `${screen} (delete confirmation)`)
  await dialog.getByRole('button', { name: 'Yes, delete' }).click()
  await dialog.waitFor({ state: 'detached' })
}

describe('admin edits and deletes', () => {
  it('renames a site, shows a refused name under its field, deletes one after confirming (and cancelling first)', async () => {
    const { context, page } = await h.open(DESKTOP)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/sites')
    await page.getByRole('button', { name: 'Edit Shelf 1' }).click()
    const edit = page.getByRole('form', { name: 'Edit site Shelf 1' })
    // The form opens with the focus in it, for the keyboard.
    await expect.poll(() => page.evaluate<string>("document.activeElement?.id ?? ''")).toBe('edit-site-name')
    await edit.getByLabel('Name').fill('Shelf A')
    await expectAccessible(page, 'admin sites (edit)')
    await screenshot(page, 'admin-sites-edit')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await page.getByText('Site Shelf A saved.').waitFor()
    const { inboundSites } = await get('/api/v1/inboundsites?limit=200')
    expect(inboundSites.map((s: { name: string }) => s.name).sort()).toEqual(['Main hall', 'Old shelf', 'Shelf A'])

    // A name the API refuses (blank) shows under the field it names.
    await page.getByRole('button', { name: 'Edit Shelf A' }).click()
    await page.getByRole('form', { name: 'Edit site Shelf A' }).getByLabel('Name').fill(' ')
    await page.getByRole('button', { name: 'Save changes' }).click()
    const name = page.getByRole('form', { name: 'Edit site Shelf A' }).getByLabel('Name')
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true')
    const describedBy = (await name.getAttribute('aria-describedby'))!
    expect(await page.locator(`[id="${describedBy.split(' ')[0]}"]`).textContent()).toMatch(/name/i)
    await page.getByRole('button', { name: 'Cancel' }).click()

    // Cancel keeps it; confirm deletes it.
    await page.getByRole('button', { name: 'Delete Old shelf' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()
    await page.getByRole('dialog').waitFor({ state: 'detached' })
    expect(await page.getByRole('button', { name: 'Delete Old shelf' }).isVisible()).toBe(true)
    await page.getByRole('button', { name: 'Delete Old shelf' }).click()
    await confirmDelete(page, 'admin sites')
    await page.getByText('Old shelf deleted.').waitFor()
    expect(await page.getByRole('button', { name: 'Delete Old shelf' }).count()).toBe(0)
    const after = await get('/api/v1/inboundsites?limit=200')
    expect(after.inboundSites.map((s: { name: string }) => s.name).sort()).toEqual(['Main hall', 'Shelf A'])

    // The API refuses to delete a site with active children (409): said above the tree.
    await page.getByRole('button', { name: 'Delete Main hall' }).click()
    await confirmDelete(page, 'admin sites')
    await page.locator('.alert').filter({ hasText: /child/i }).waitFor()
    expect(h.pageErrors).toEqual([])
    await context.close()
  })

  it('edits a custom field into a list and deletes another', async () => {
    const { context, page } = await h.open(TABLET)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/customfields')
    await page.getByRole('button', { name: 'Edit Cost centre' }).click()
    const edit = page.getByRole('form', { name: 'Edit custom field Cost centre' })
    await edit.getByLabel('Field name').fill('Department')
    await edit.getByLabel('Data type').selectOption('LIST')
    await edit.getByLabel('Options').fill('Physics, Chemistry')
    await edit.getByLabel('Required').check()
    await expectAccessible(page, 'admin custom fields (edit)')
    await screenshot(page, 'admin-customfields-edit-tablet')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await page.getByText('Field Department saved.').waitFor()
    const { customFields } = await get('/api/v1/customfields?limit=200')
    expect(customFields.find((f: { name: string }) => f.name === 'Department')).toMatchObject({
      dataType: 'LIST',
      required: true,
      options: ['Physics', 'Chemistry'],
    })

    await page.getByRole('button', { name: 'Delete Fragile' }).click()
    await confirmDelete(page, 'admin custom fields')
    await page.getByText('Fragile deleted.').waitFor()
    const after = await get('/api/v1/customfields?limit=200')
    expect(after.customFields.map((f: { name: string }) => f.name)).toEqual(['Department'])
    expect(h.pageErrors).toEqual([])
    await context.close()
  })

  it('edits a courier, deletes an unused one, and shows why one that packages name is kept; built-in carriers have no actions', async () => {
    const { context, page } = await h.open(DESKTOP)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/carriers')
    await page.getByRole('button', { name: 'Edit Van Run' }).click()
    const edit = page.getByRole('form', { name: 'Edit courier Van Run' })
    await edit.getByLabel('Courier name').fill('UPS')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    // The API's refusal (the name is a built-in carrier's) under the name.
    const name = edit.getByLabel('Courier name')
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true')
    await name.fill('Van Round')
    await edit.getByLabel('Services').fill('Morning, Evening')
    await expectAccessible(page, 'admin carriers (edit)')
    await screenshot(page, 'admin-carriers-edit')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await page.getByText('Courier Van Round saved.').waitFor()
    const { carriers } = await get('/api/v1/carriers/catalog?limit=200')
    expect(carriers.find((c: { name: string }) => c.name === 'Van Round')).toMatchObject({
      services: ['Morning', 'Evening'],
    })

    await page.getByRole('button', { name: 'Delete Van Round' }).click()
    await confirmDelete(page, 'admin carriers')
    await page.getByText(/rename it instead/).waitFor()
    await page.getByRole('button', { name: 'Delete Bike Run' }).click()
    await confirmDelete(page, 'admin carriers')
    await page.getByText('Bike Run deleted.').waitFor()
    const after = await get('/api/v1/carriers/catalog?limit=200')
    expect(after.carriers.filter((c: { builtIn: boolean }) => !c.builtIn).map((c: { name: string }) => c.name)).toEqual(
      ['Van Round'],
    )
    expect(await page.getByRole('button', { name: 'Edit UPS' }).count()).toBe(0)
    expect(h.pageErrors).toEqual([])
    await context.close()
  })

  it('edits a contact (clearing an optional field) and deletes another', async () => {
    const { context, page } = await h.open(DESKTOP)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/contacts')
    // The screen's reads done first: an edit opened while the list was still loading was closed by it on a busy CI.
    await page.waitForLoadState('networkidle')
    await page.getByRole('button', { name: 'Edit Ada Lovelace' }).click()
    const edit = page.getByRole('form', { name: 'Edit contact Ada Lovelace' })
    await edit.getByLabel('Contact email').fill('not an email')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(() => edit.getByLabel('Contact email').getAttribute('aria-invalid')).toBe('true')
    await edit.getByLabel('Contact email').fill('ada@example.org')
    await edit.getByLabel('Company').fill('Analytical Engines')
    await edit.getByLabel('Phone').fill('')
    await expectAccessible(page, 'admin contacts (edit)')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await page.getByText('Contact Ada Lovelace saved.').waitFor()
    await page.getByRole('cell', { name: 'Analytical Engines' }).waitFor()

    await page.getByRole('button', { name: 'Delete Moved Away' }).click()
    await confirmDelete(page, 'admin contacts')
    await page.getByText('Moved Away deleted.').waitFor()
    const { contacts } = await get('/api/v1/contacts?limit=50')
    expect(contacts).toEqual([
      expect.objectContaining({ name: 'Ada Lovelace', email: 'ada@example.org', company: 'Analytical Engines' }),
    ])
    expect(contacts[0].phone).toBeUndefined()
    expect(h.pageErrors).toEqual([])
    await context.close()
  })

  it("a webhook's new URL without its secret: the API's refusal shows under the secret's field", async () => {
    const { context, page } = await h.open(DESKTOP)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/webhooks')
    const create = page.getByRole('form', { name: 'New webhook' })
    await create.getByLabel('Webhook name').fill('Mail feed')
    await create.getByLabel('URL').fill(rx.url('/one'))
    await create.getByRole('group', { name: 'Events' }).getByRole('checkbox').first().check()
    await create.getByLabel('Authentication').selectOption('custom')
    await create.getByLabel('Header name').fill('X-Api-Key')
    await create.getByLabel('API key').fill('key-number-one-1234')
    await create.getByRole('button', { name: 'Create webhook' }).click()
    await page.getByText(/Webhook Mail feed created/).waitFor()

    await page.getByRole('button', { name: 'Edit Mail feed' }).click()
    const edit = page.getByRole('form', { name: 'Edit webhook Mail feed' })
    // The stored key comes back masked; a new URL with the mask is refused.
    expect(await edit.getByLabel('API key').inputValue()).toMatch(/^\*+1234$/)
    await edit.getByLabel('URL').fill(rx.url('/two'))
    await edit.getByRole('button', { name: 'Save changes' }).click()
    const key = edit.getByLabel('API key')
    await expect.poll(() => key.getAttribute('aria-invalid')).toBe('true')
    const errorId = (await key.getAttribute('aria-describedby'))!.split(' ')[0]!
    expect(await page.locator(`[id="${errorId}"]`).textContent()).toMatch(/url changed: send the secret itself/)
    await expectAccessible(page, 'admin webhooks (edit refused)')
    await screenshot(page, 'admin-webhooks-edit-refused')

    await key.fill('key-number-two-5678')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await page.getByText('Webhook Mail feed saved.').waitFor()
    const { webhookConfigs } = await get('/webhooks/tracking/api/v1/webhookConfig')
    expect(webhookConfigs).toEqual([
      expect.objectContaining({
        url: rx.url('/two'),
        authParams: expect.objectContaining({ apiKey: expect.stringMatching(/5678$/) }),
      }),
    ])

    await page.getByRole('button', { name: 'Delete Mail feed' }).click()
    await confirmDelete(page, 'admin webhooks')
    await page.getByText('Mail feed deleted.').waitFor()
    expect(await page.getByRole('button', { name: 'Edit Mail feed' }).count()).toBe(0)
    expect(h.pageErrors).toEqual([])
    await context.close()
  })
})
