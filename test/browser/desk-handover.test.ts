import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api, trackingNumber } from '../support/factories.js'
import { DESKTOP, expectAccessible, screenshot, signIn, useConsole } from './support.js'

// The desk's other half in Chromium: hand-overs by code, by name, on behalf, and one done with the
// keyboard only and a typed signature; a used code and an unknown code told apart; a roster
// imported twice. Each is checked through the API afterwards, not only on the page.

const h = useConsole()
let client: TestClient
let a: ReturnType<typeof api>
let m: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
const clerk = { email: 'clerk@handover.example', password: 'clerk password 123' }
const admin = { email: 'admin@handover.example', password: 'admin password 123' }
const PHONE = { width: 390, height: 844 }

beforeAll(async () => {
  client = await h.t.newClient('handover-desk')
  a = api(h.t, client)
  m = await a.mailroom()
  await createUser(h.t, client, { ...clerk, role: 'clerk' })
  await createUser(h.t, client, { ...admin, role: 'admin' })
})

const focusedId = (page: Page) => page.evaluate<string>("document.activeElement?.id ?? ''")
const add = async (receiver: string, at = m.shelfId) =>
  (
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber('1ZHAND'), receiver: { contactId: receiver } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: at } },
    })
  ).packageId as string
const detailed = (id: string) => a.ok('GET', `/api/v1/packages/${id}?type=DETAILED`)
const deliveredOf = async (id: string) =>
  (await a.ok('GET', `/api/v1/packages/${id}?type=ACTIVITIES`)).activities.find(
    (x: { status: string }) => x.status === 'DELIVERED',
  )
const siteOf = async (id: string) =>
  (await a.ok('GET', '/api/v1/inboundsites?limit=200')).inboundSites.find(
    (x: { inboundSiteId: string }) => x.inboundSiteId === id,
  )
const pickupOf = (id: string) => a.ok('GET', `/api/v1/pickups/${id}`)

async function sign(page: Page) {
  const pad = await page.getByRole('img', { name: 'Signature' }).boundingBox()
  await page.mouse.move(pad!.x + 30, pad!.y + 100)
  await page.mouse.down()
  for (let i = 1; i <= 8; i++) await page.mouse.move(pad!.x + 30 + i * 25, pad!.y + 100 + (i % 2 ? -30 : 30))
  await page.mouse.up()
}

describe('hand-over for everyone', () => {
  it('by code, then the used code and an unknown code get different messages; by name; on behalf', async () => {
    const grace = await a.contact('RECEIVER', 'Grace Brewster', { email: 'grace@example.com' })
    const p1 = await add(grace)
    const p2 = await add(m.receiverId)
    const code = (await detailed(p1)).pickupCode as string
    const { context, page } = await h.open(DESKTOP)
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/pickup')
    await page.getByRole('heading', { name: 'Hand over' }).waitFor()
    await expect.poll(() => focusedId(page)).toBe('pickup-find')
    const find = page.getByRole('combobox', { name: 'Pickup code or recipient' })
    await find.pressSequentially(code)
    await find.press('Enter')
    await page.getByRole('checkbox', { name: /1ZHAND/ }).waitFor()
    await sign(page)
    await page.getByRole('button', { name: 'Hand over' }).click()
    await page.getByText('Handed over 1 parcel to Grace Brewster').waitFor()
    // The form is clean again and the find field has the focus.
    await expect.poll(() => focusedId(page)).toBe('pickup-find')
    expect(await find.inputValue()).toBe('')
    expect(await page.getByRole('checkbox').count()).toBe(0)
    const first = await detailed(p1)
    expect(first.currentStatus).toBe('DELIVERED')

    await find.pressSequentially(code)
    await find.press('Enter')
    const used = page.getByRole('alert').filter({ hasText: 'already used' })
    await used.waitFor()
    expect(await used.textContent()).toContain('to Grace Brewster')
    expect(await used.textContent()).not.toContain(code)
    await find.fill('')
    await find.pressSequentially('ZZZZZZ')
    await find.press('Enter')
    await page.getByRole('alert').filter({ hasText: 'No parcel has this pickup code' }).waitFor()
    await expectAccessible(page, 'hand over (used code)')

    // By name, collected on Ada's behalf by someone who is not a contact.
    await find.fill('Ada')
    await page.getByRole('option', { name: /Ada Lovelace/ }).click()
    await page.getByRole('checkbox', { name: /1ZHAND/ }).waitFor()
    await page.getByRole('combobox', { name: 'Collected by' }).fill('')
    await page.getByLabel("Collector's name").fill('Charles Babbage')
    await sign(page)
    await page.getByRole('button', { name: 'Hand over' }).click()
    await page.getByText('Handed over 1 parcel to Charles Babbage').waitFor()
    const second = await detailed(p2)
    expect(second.currentStatus).toBe('DELIVERED')
    const pickupId = (await deliveredOf(p2)).pickupId
    expect(await pickupOf(pickupId)).toMatchObject({
      givenTo: { name: 'Charles Babbage' },
      onBehalfOf: { contactId: m.receiverId },
      images: [expect.objectContaining({ imageType: 'SIGNATURE' })],
    })
    await context.close()
  })

  it('keyboard only, with a typed signature recorded as such; phone width; the site rule', async () => {
    const kay = await a.contact('RECEIVER', 'Kay Board', { email: 'kay@example.com' })
    const id = await add(kay)
    const { context, page } = await h.open(PHONE)
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/pickup')
    await expect.poll(() => focusedId(page)).toBe('pickup-find')
    await page.keyboard.type('Kay Bo')
    await page.getByRole('option', { name: /Kay Board/ }).waitFor()
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await page.getByRole('checkbox', { name: /1ZHAND/ }).waitFor()
    // Tab to the typed signature, type the name, and submit with Enter.
    for (let i = 0; i < 30 && (await focusedId(page)) !== 'pickup-typed'; i++) await page.keyboard.press('Tab')
    expect(await focusedId(page)).toBe('pickup-typed')
    await page.keyboard.type('Kay Board')
    await page.keyboard.press('Enter')
    await page.getByText('Handed over 1 parcel to Kay Board').waitFor()
    const delivered = await deliveredOf(id)
    expect(delivered.comment).toContain('Signature typed by the collector: Kay Board')
    // Recorded as typed (the pickup's typedSignature), not passed off as a drawn signature image.
    expect(await pickupOf(delivered.pickupId)).toMatchObject({ typedSignature: 'Kay Board', images: [] })
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true)
    await expectAccessible(page, 'hand over (phone)')
    await screenshot(page, 'hand-over-phone')

    // A site where the signature is off: no pad, handed over without any image.
    await a.ok('PUT', `/api/v1/inboundsites/${m.buildingId}`, { signatureRule: 'off' }, 200)
    const free = await add(kay)
    await page.reload()
    await page.getByRole('combobox', { name: 'Pickup code or recipient' }).fill('Kay Bo')
    await page.getByRole('option', { name: /Kay Board/ }).click()
    await page.getByText('No signature needed here.').waitFor()
    await page.getByRole('button', { name: 'Hand over' }).click()
    await page.getByText('Handed over 1 parcel to Kay Board').waitFor()
    const freePickup = (await deliveredOf(free)).pickupId
    expect((await pickupOf(freePickup)).images).toEqual([])
    await a.ok('PUT', `/api/v1/inboundsites/${m.buildingId}`, { signatureRule: null }, 200)
    await context.close()
  })

  it("an admin sets a site's signature rule, photo proof and opening hours in the console; the API shows them", async () => {
    const { context, page } = await h.open(PHONE)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/sites')
    await page.getByRole('button', { name: 'Edit Building A' }).click()
    const edit = page.getByRole('form', { name: 'Edit site Building A' })
    await edit.getByLabel('Signature at hand-over').selectOption('optional')
    await edit.getByLabel('Photo of the collector or their ID instead of a signature').selectOption('true')
    await edit.getByLabel('Opening hours').fill('Mon–Fri 9:00–17:00')
    await expectAccessible(page, 'admin sites (hand-over rule, phone)')
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true)
    await edit.getByRole('button', { name: 'Save changes' }).click()
    await page.getByText('Site Building A saved.').waitFor()
    const site = await siteOf(m.buildingId)
    expect(site).toMatchObject({
      signatureRule: 'optional',
      photoProofAllowed: true,
      openingHours: 'Mon–Fri 9:00–17:00',
    })
    await page.getByRole('button', { name: 'Edit Building A' }).click()
    await edit.getByLabel('Signature at hand-over').selectOption('')
    await edit.getByRole('button', { name: 'Save changes' }).click()
    // "Saved." is still on the page from the first save: the API is what says the second one landed.
    await expect.poll(async () => (await siteOf(m.buildingId)).signatureRule).toBeUndefined()
    await page.getByText('Site Building A saved.').waitFor()
    await context.close()
  })

  it('a roster imported twice through the console: the second import changes nothing (the API shows it)', async () => {
    const { context, page } = await h.open(PHONE)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/contacts')
    const roster =
      'Full Name;E-mail;Student ID;Locker\r\nRosa Twice;rosa@example.com;R-1;12\r\nOtto Twice;otto@example.com;R-2;14\r\n'
    const importOnce = async () => {
      await page
        .getByLabel('Roster file')
        .setInputFiles({ name: 'roster.csv', mimeType: 'text/csv', buffer: Buffer.from(roster) })
      await page.getByRole('table', { name: 'Roster preview' }).waitFor()
      await page.getByText('Column "Locker" is not a contact field: ignored.').waitFor()
      await page.getByRole('button', { name: 'Import 2 rows' }).click()
      await page.getByText(/^Imported:/).waitFor()
      return (await page.getByText(/^Imported:/).textContent()) ?? ''
    }
    expect(await importOnce()).toBe('Imported: 2 created, 0 updated, 0 unchanged.')
    const before = (await a.ok('GET', '/api/v1/contacts?query=R-&limit=50')).contacts
    expect(before.map((x: { name: string }) => x.name).sort()).toEqual(['Otto Twice', 'Rosa Twice'])
    await expectAccessible(page, 'admin contacts (roster, phone)')
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true)
    await page.reload()
    expect(await importOnce()).toBe('Imported: 0 created, 0 updated, 2 unchanged.')
    expect((await a.ok('GET', '/api/v1/contacts?query=R-&limit=50')).contacts).toEqual(before)
    await context.close()
  })
})
