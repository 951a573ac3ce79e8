import ExcelJS from 'exceljs'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api, trackingNumber } from '../support/factories.js'
import { DESKTOP, expectAccessible, screenshot, signIn, useConsole } from './support.js'

// Admin › Directory in Chromium: a SCIM token shown once and working, revoked after a confirmation;
// the LDAP settings form; and the dashboard's exception for a recipient who left with parcels waiting.

const h = useConsole()
let client: TestClient
const admin = { email: 'admin@directory.example', password: 'admin password 123' }

beforeAll(async () => {
  client = await h.t.newClient('directory-desk')
  await createUser(h.t, client, { ...admin, role: 'admin' })
})

const scimStatus = async (token: string) =>
  (await h.t.app.inject({ method: 'GET', url: '/scim/v2/Users', headers: { authorization: `Bearer ${token}` } }))
    .statusCode

describe('the directory in the console', () => {
  it('creates a SCIM token shown once, and revokes it', async () => {
    const { page } = await h.open(DESKTOP)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/directory')
    await page.getByRole('heading', { name: 'Admin: Directory' }).waitFor()
    await page.getByText('No SCIM token yet.').waitFor()
    await page.getByLabel('Who uses it').fill('Okta')
    await page.getByRole('button', { name: 'Create SCIM token' }).click()
    const once = page.getByRole('region', { name: 'SCIM token Okta created.' })
    await once.waitFor()
    const token = await once.getByLabel('Bearer token').inputValue()
    expect(token).toMatch(/^mrscim_/)
    expect(await scimStatus(token)).toBe(200)
    await expectAccessible(page, 'admin directory (token shown)')
    await screenshot(page, 'admin-directory-token')
    await once.getByRole('button', { name: 'I have copied it' }).click()
    await page.getByRole('button', { name: 'Revoke Okta' }).click()
    await page.getByRole('button', { name: 'Yes, revoke' }).click()
    await page.getByText('SCIM token Okta revoked.').waitFor()
    expect(await scimStatus(token)).toBe(401)

    // The LDAP settings: saved, the password never shown again.
    await page.getByLabel('Server URL').fill('ldap://127.0.0.1:1')
    await page.getByLabel('Bind DN').fill('cn=reader,dc=example,dc=org')
    await page.getByLabel('Bind password').fill('reader-secret')
    await page.getByLabel('Base DN').fill('ou=people,dc=example,dc=org')
    await page.getByRole('button', { name: 'Save LDAP settings' }).click()
    await page.getByRole('button', { name: 'Dry run' }).waitFor()
    expect(await page.getByLabel('Bind password').inputValue()).toBe('')
    await expectAccessible(page, 'admin directory (LDAP set)')

    // A run refused by the mass-deactivation guard: shown with its reason, and confirmed by its id
    // (the confirmation passes; the directory, unreachable here, is what fails).
    await h.t.ctx.db
      .updateTable('ldap_settings')
      .set({
        last_run: JSON.stringify({
          at: new Date().toISOString(),
          runId: 'ldr_refused1',
          ok: false,
          seen: 0,
          created: 0,
          updated: 0,
          deactivated: 12,
          unchanged: 0,
          invalid: 0,
          ms: 5,
          refused: { reason: 'empty_search', deactivations: 12, allowed: 0 },
          error: 'Refused: the search found no usable entry.',
        }),
      })
      .where('sub_id', '=', client.subId)
      .execute()
    await page.reload()
    await page.getByText(/refused, nothing written/).waitFor()
    await page.getByRole('button', { name: 'Confirm: deactivate these 12 contacts' }).click()
    await page.getByText(/could not be read/).waitFor()
    expect(h.pageErrors).toEqual([])
  })

  it('shows a recipient who left with parcels waiting on the dashboard', async () => {
    const a = api(h.t, client)
    const locationId = await a.location('Directory HQ')
    const siteId = await a.site({ type: 'site', name: 'Directory desk', locationId, primary: true })
    const leaver = await a.contact('RECEIVER', 'Lee Leaver')
    const p = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('1ZLEFT'), receiver: { contactId: leaver }, inboundSiteId: siteId },
      lastActivity: { status: 'READY_FOR_PICKUP', location: { inboundSiteId: siteId } },
    })
    await a.ok('PUT', `/api/v1/contacts/${leaver}`, { status: 'inactive' }, 200)
    const { page } = await h.open(DESKTOP)
    await signIn(page, admin.email, admin.password)
    const card = page.getByRole('region', { name: 'Recipients who left with parcels waiting' })
    await card.waitFor()
    await card.getByText('Lee Leaver').waitFor()
    const record = await a.ok('GET', `/api/v1/packages/${p.packageId}?type=DETAILED`, undefined, 200)
    await card.getByRole('link', { name: record.trackingNumber }).waitFor()
    await expectAccessible(page, 'dashboard with a departure')
    await screenshot(page, 'dashboard-departure')
  })

  it('imports an Excel roster through the console: a row that says left deactivates its contact', async () => {
    const a = api(h.t, client)
    const stays = await a.contact('RECEIVER', 'Stan Stays', { email: 'stan@example.com', externalId: 'HR-10' })
    const wb = new ExcelJS.Workbook()
    const ws = wb.addWorksheet('Staff')
    ws.addRow(['External ID', 'Full Name', 'Email', 'Office', 'Status'])
    ws.addRow(['HR-11', 'Xena Excel', 'xena@example.com', 'B-204', 'active'])
    ws.addRow(['HR-10', 'Stan Stays', 'stan@example.com', '', 'left'])
    const buffer = Buffer.from(await wb.xlsx.writeBuffer())
    const { page } = await h.open(DESKTOP)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/contacts')
    await page.getByRole('heading', { name: 'Import a roster (CSV or Excel)' }).waitFor()
    await page.getByLabel('Roster file').setInputFiles({
      name: 'staff.xlsx',
      mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      buffer,
    })
    await page.getByRole('table', { name: 'Roster preview' }).waitFor()
    await page.getByText('Deactivate (left): status').waitFor()
    await expectAccessible(page, 'roster preview (xlsx)')
    await page.getByRole('button', { name: 'Import 2 rows' }).click()
    await page.getByText('Imported: 1 created, 0 updated, 1 deactivated, 0 unchanged.').waitFor()
    expect((await a.ok('GET', `/api/v1/contacts/${stays}`, undefined, 200)).status).toBe('inactive')
    const xena = (await a.ok('GET', '/api/v1/contacts?query=xena@', undefined, 200)).contacts[0]
    expect(xena).toMatchObject({ name: 'Xena Excel', unit: 'B-204', source: 'csv' })
  })
})
