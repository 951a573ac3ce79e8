import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { DESKTOP, expectAccessible, screenshot, signIn, useConsole } from './support.js'

// Issue 25.6 as an admin sets up in Chromium: the notification emails (with a preview the server
// renders from a sample parcel), a site's opening hours, a contact's language; and what a clerk sees
// on an admin URL (not allowed, no form) and anyone on an unknown admin section (not found).

const PHONE = { width: 390, height: 844 }
const h = useConsole()
let client: TestClient
let hq: string
const admin = { email: 'admin@settings.example', password: 'admin password 123' }
const clerk = { email: 'clerk@settings.example', password: 'clerk password 123' }

beforeAll(async () => {
  client = await h.t.newClient('settings-admin')
  const a = api(h.t, client)
  const locationId = await a.location('Campus')
  hq = await a.site({ type: 'site', name: 'Mailroom 1', locationId, primary: true })
  await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Zoé Lefèvre', email: 'zoe@example.org' })
  await createUser(h.t, client, { ...admin, role: 'admin' })
  await createUser(h.t, client, { ...clerk, role: 'clerk' })
})

async function get(path: string) {
  const res = await h.t.inject({ method: 'GET', url: path, headers: client.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

describe('settings in the console', () => {
  it('edits the arrival email, previews it rendered by the server, refuses a bad template under its field, saves', async () => {
    const { page } = await h.open(DESKTOP)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/notifications')
    await page.getByRole('heading', { name: 'Admin: Notifications' }).waitFor()
    await page.getByLabel('Reminders after (hours)').fill('24, 72')
    await page.getByLabel('Subject template').fill('{{recipientName}}: {{count}} waiting at {{siteName}}')
    await page.getByRole('button', { name: 'Preview' }).click()
    const preview = page.getByRole('region', { name: /Preview: Arrival/ })
    await preview.waitFor()
    // The sample parcel, through the sending renderer: the subject as typed, the shipped text below it.
    expect(await preview.locator('.preview-subject').textContent()).toBe(
      'Alex Sample: 1 waiting at Mailroom 1, Building 1',
    )
    const text = await preview.locator('.preview-text').textContent()
    expect(text).toContain('1Z999AA10123456784 (UPS)')
    expect(text).toContain('K7M2QD')
    // The HTML part, with the pickup code's QR image inlined: as source, and rendered as the recipient sees it.
    expect(await preview.locator('.preview-html').textContent()).toContain('data:image/png;base64,')
    const rendered = preview.getByRole('document', { name: 'The email as sent' })
    await expect.poll(() => rendered.locator('img').count()).toBeGreaterThan(0)
    expect(await rendered.locator('img').first().getAttribute('src')).toMatch(/^data:image\/png;base64,/)
    expect(
      await rendered
        .locator('img')
        .first()
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0)
    expect(await rendered.evaluate((el) => el.shadowRoot?.textContent ?? '')).toContain('K7M2QD')
    await expectAccessible(page, 'admin notifications (preview)')
    await screenshot(page, 'settings-notifications-preview')

    // Unescaped output is refused by the preview as by the save: the message is under the field.
    await page.getByLabel('HTML template').fill('<p>{{{recipientName}}}</p>')
    await page.getByRole('button', { name: 'Preview' }).click()
    const html = page.getByLabel('HTML template')
    await expect.poll(() => html.getAttribute('aria-invalid')).toBe('true')
    const describedBy = (await html.getAttribute('aria-describedby'))!
    expect(await page.locator(`[id="${describedBy.split(' ')[0]}"]`).textContent()).toContain('unescaped')
    await page.getByLabel('HTML template').fill('')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Notification settings saved.').waitFor()

    const saved = await get('/api/v1/notifications/settings')
    expect(saved.reminderAfterHours).toEqual([24, 72])
    expect(saved.templates).toEqual({ ARRIVAL: { subject: '{{recipientName}}: {{count}} waiting at {{siteName}}' } })
  })

  it('sets a site’s opening hours and signature rule, and a contact’s email language', async () => {
    const { page } = await h.open(DESKTOP)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/sites')
    await page.getByRole('button', { name: 'Edit Mailroom 1' }).click()
    const edit = page.getByRole('form', { name: 'Edit site Mailroom 1' })
    await edit.getByLabel('Opening hours').fill('Mon–Fri 8:00–18:00')
    await edit.getByLabel('Signature at hand-over').selectOption('optional')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await page.getByText('Site Mailroom 1 saved.').waitFor()
    const { inboundSites } = await get('/api/v1/inboundsites?limit=200')
    const site = inboundSites.find((s: { inboundSiteId: string }) => s.inboundSiteId === hq)
    expect(site).toMatchObject({ openingHours: 'Mon–Fri 8:00–18:00', signatureRule: 'optional' })

    await page.goto('/console/admin/contacts')
    await page.getByRole('button', { name: 'Edit Zoé Lefèvre' }).click()
    const contact = page.getByRole('form', { name: 'Edit contact Zoé Lefèvre' })
    // A tag the API refuses is named under the field; a good one is saved.
    await contact.getByLabel('Email language').fill('French')
    await contact.getByRole('button', { name: 'Save changes' }).click()
    await expect.poll(() => contact.getByLabel('Email language').getAttribute('aria-invalid')).toBe('true')
    await contact.getByLabel('Email language').fill('fr')
    await contact.getByRole('button', { name: 'Save changes' }).click()
    await page.getByText('Contact Zoé Lefèvre saved.').waitFor()
    const { contacts } = await get('/api/v1/contacts?query=Zo')
    expect(contacts[0]).toMatchObject({ name: 'Zoé Lefèvre', language: 'fr' })
    await expect.poll(() => page.getByRole('cell', { name: 'fr', exact: true }).count()).toBe(1)
  })

  it('sets a site’s holding fee as money and its return deadline; a refused value is named under its field, nothing saved', async () => {
    const { page } = await h.open(PHONE)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/sites')
    await page.getByRole('button', { name: 'Edit Mailroom 1' }).click()
    const edit = page.getByRole('form', { name: 'Edit site Mailroom 1' })
    const freeDays = edit.getByLabel('Free days', { exact: true })
    await edit.getByLabel('Fee per day after the free days').fill('2.50')
    await edit.getByLabel('Currency', { exact: true }).fill('eur')
    await freeDays.fill('4000')
    await edit.getByLabel('At most per parcel (optional)').fill('10')
    await edit.getByLabel('Return to sender after (days)').fill('21')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    // The server's 400 names holdingFee.freeDays: its message is under that field, and nothing was written.
    await expect.poll(() => freeDays.getAttribute('aria-invalid')).toBe('true')
    const describedBy = (await freeDays.getAttribute('aria-describedby'))!
    expect(await page.locator(`[id="${describedBy.split(' ')[0]}"]`).textContent()).toContain('3650')
    await expectAccessible(page, 'admin site edit (refused fee)')
    const site = async () =>
      (await get('/api/v1/inboundsites?limit=200')).inboundSites.find(
        (s: { inboundSiteId: string }) => s.inboundSiteId === hq,
      )
    expect((await site()).holdingFee).toBeUndefined()
    expect((await get(`/api/v1/inboundsites/${hq}/returnDeadline`)).returnAfterDays).toBeNull()

    // Fixed by keyboard: the field, then Enter submits the form.
    await freeDays.fill('3')
    await freeDays.press('Enter')
    await page.getByText('Site Mailroom 1 saved.').waitFor()
    expect((await site()).holdingFee).toEqual({ freeDays: 3, amountPerDay: 250, currency: 'EUR', cap: 1000 })
    expect((await get(`/api/v1/inboundsites/${hq}/returnDeadline`)).returnAfterDays).toBe(21)

    // Opened again it reads as typed; emptied, both are the site above's again (none here).
    await page.getByRole('button', { name: 'Edit Mailroom 1' }).click()
    await expect.poll(() => edit.getByLabel('Return to sender after (days)').inputValue()).toBe('21')
    expect(await edit.getByLabel('Fee per day after the free days').inputValue()).toBe('2.50')
    expect(await edit.getByLabel('At most per parcel (optional)').inputValue()).toBe('10.00')
    await edit.getByLabel('Fee per day after the free days').fill('')
    await edit.getByLabel('Return to sender after (days)').fill('')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    // The last save's message is still above the list: the form closing says this one is done.
    await edit.waitFor({ state: 'detached' })
    expect((await site()).holdingFee).toBeUndefined()
    expect((await get(`/api/v1/inboundsites/${hq}/returnDeadline`)).returnAfterDays).toBeNull()
  })

  it('a clerk on an admin URL sees “not allowed” and no form; an unknown admin section is not found', async () => {
    const { page } = await h.open(DESKTOP)
    await signIn(page, clerk.email, clerk.password)
    for (const section of ['sites', 'users', 'notifications', 'nonsense']) {
      await page.goto(`/console/admin/${section}`)
      await page.getByRole('heading', { name: 'Not allowed' }).waitFor()
      expect(await page.locator('main form, main input, main select, main textarea').count()).toBe(0)
    }
    await expectAccessible(page, 'admin refused to a clerk')
    expect(await page.getByRole('link', { name: 'Admin' }).count()).toBe(0)

    const other = await h.open(DESKTOP)
    await signIn(other.page, admin.email, admin.password)
    await other.page.goto('/console/admin/nonsense')
    await other.page.getByRole('heading', { name: 'Not found' }).waitFor()
    expect(await other.page.locator('main form').count()).toBe(0)
    expect(h.pageErrors).toEqual([])
  })
})
