import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { upsCheckDigit } from '../../src/decode/index.js'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api, PNG_1PX } from '../support/factories.js'
import { TestSmtpServer } from '../notifications/support/smtp.js'
import { expectAccessible, screenshot, signIn, useConsole } from './support.js'

// Issue 25 items 3, 5 and 9 as a clerk meets them: the admin's custom fields on Receive (required
// ones refused by the console and by the server), a parcel scanned again the day it was handed over
// or archived, and the package screen (damage with a photo, History with comments, the clerk by
// name, every email with its status and each pickup, a resend). What counts is what the API and
// the recipient's mailbox show afterwards.

const WIDE = { width: 1366, height: 768 }
const PHONE = { width: 390, height: 844 }
/** A valid UPS 1Z number from a serial of up to 7 digits. */
const ups = (serial: string) => {
  const body = `1Z999AA101${serial.padStart(7, '0')}`
  return body + upsCheckDigit(body.slice(2))
}
const PNG = Buffer.from(PNG_1PX.split(',')[1]!, 'base64')

const smtp = new TestSmtpServer()
const env: Record<string, string> = { MAILROOM_PUBLIC_URL: 'https://mailroom.example.test' }
beforeAll(async () => {
  await smtp.start()
  env.SMTP_URL = smtp.url
})
afterAll(() => smtp.close())
const h = useConsole(env)
let client: TestClient
let a: ReturnType<typeof api>
const ids: Record<string, string> = {}
const clerk = { email: 'records@desk.example', password: 'records password 123' }
let stopNotifications: (() => unknown) | undefined
afterAll(async () => {
  await stopNotifications?.()
})

beforeAll(async () => {
  client = await h.t.newClient('records-desk')
  a = api(h.t, client)
  const locationId = await a.location('Hall')
  ids.site = await a.site({ type: 'site', name: 'Hall desk', locationId, primary: true })
  ids.ada = (
    await a.ok('POST', '/api/v1/contacts', {
      contactType: 'RECEIVER',
      name: 'Ada Lovelace',
      email: 'ada@records.example',
    })
  ).contactId
  await a.ok(
    'PUT',
    '/api/v1/notifications/settings',
    { enabled: true, arrivalBatchSeconds: 0, reminderAfterHours: [], finalNoticeAfterHours: null, templates: {} },
    200,
  )
  ids.department = (
    await a.ok('POST', '/api/v1/customfields', { name: 'Department', dataType: 'TEXT', required: true }, 201)
  ).customFieldId
  ids.size = (
    await a.ok('POST', '/api/v1/customfields', { name: 'Size', dataType: 'LIST', options: ['Small', 'Large'] }, 201)
  ).customFieldId
  await createUser(h.t, client, { ...clerk, role: 'clerk', name: 'Rita Records' })
  stopNotifications = h.t.ctx.notifications.start()
})

const focusedId = (page: Page) => page.evaluate<string>('document.activeElement?.id ?? ""')
const expectFocus = (page: Page, id: string) => expect.poll(() => focusedId(page), { timeout: 10_000 }).toBe(id)
async function call(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: Record<string, unknown>) {
  return h.t.inject({ method, url, headers: client.auth, ...(payload === undefined ? {} : { payload }) })
}
const record = async (n: string) => (await call('GET', `/api/v1/packages/tracking/${n}`)).json()
/** A parcel for Ada, received through the API (an arrival email goes to her). */
const received = async (n: string): Promise<string> =>
  (
    await a.ok('POST', '/api/v1/packages', {
      package: {
        trackingNumber: n,
        receiver: { contactId: ids.ada },
        customFields: [{ customFieldId: ids.department!, value: 'Maths' }],
      },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: ids.site } },
    })
  ).packageId
const mailsAbout = (n: string) => smtp.received.filter((m) => (m.mail.text ?? '').includes(n))
const arrivalsAbout = (n: string) => mailsAbout(n).filter((m) => (m.mail.subject ?? '').includes('waiting for you'))
/** Every email about the package is settled (sent, failed or not sent): none is still to come. */
const settled = async (packageId: string) =>
  (await a.ok('GET', `/api/v1/notifications?packageId=${packageId}`)).notifications.every(
    (x: { status: string }) => x.status !== 'pending',
  )

async function scan(page: Page, text: string) {
  await page.locator('#receive-scan').focus()
  await page.keyboard.type(text)
  await page.keyboard.press('Enter')
}

async function atTheDesk(viewport = WIDE): Promise<{ context: BrowserContext; page: Page }> {
  const { context, page } = await h.open(viewport)
  await signIn(page, clerk.email, clerk.password)
  await page.getByRole('link', { name: 'Receive' }).click()
  await expectFocus(page, 'receive-scan')
  await page.getByLabel('Location', { exact: true }).selectOption({ label: 'Hall desk' })
  return { context, page }
}

async function noSidewaysScroll(page: Page) {
  const [scroll, width] = await page.evaluate<[number, number]>(
    '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
  )
  expect(scroll, 'page width at 390 px').toBeLessThanOrEqual(width)
}

describe("the desk's records", () => {
  it('custom fields appear on Receive; a required one is refused by the console and by the server; values are saved', async () => {
    const { page } = await atTheDesk()
    const n = ups('1000001')
    await scan(page, n)
    await expectFocus(page, 'receive-recipient')
    await page.keyboard.type('Ada')
    await page.locator('#receive-recipient-list li').first().filter({ hasText: 'Ada' }).waitFor()
    await page.keyboard.press('Enter')
    await expectFocus(page, 'save-package')
    await page.getByLabel('Size').selectOption('Large')
    await page.getByRole('button', { name: 'Save package' }).click()
    // Refused before anything is sent: said, and the focus is on the empty field.
    await page.getByRole('alert').filter({ hasText: 'Department is required.' }).first().waitFor()
    await expectFocus(page, `receive-cf-${ids.department}`)
    expect((await call('GET', `/api/v1/packages/tracking/${n}`)).statusCode).toBe(404)
    await page.keyboard.type('Physics')
    await page.getByRole('button', { name: 'Save package' }).click()
    await page.getByRole('link', { name: n }).waitFor({ timeout: 15_000 })
    expect((await record(n)).customFields).toEqual([
      { customFieldId: ids.department, name: 'Department', status: 'ACTIVE', value: 'Physics' },
      { customFieldId: ids.size, name: 'Size', status: 'ACTIVE', value: 'Large' },
    ])

    // The server's own rule for any client that leaves it out: 400 naming the field.
    const bare = await call('POST', '/api/v1/packages', { package: { trackingNumber: ups('1000002') } })
    expect(bare.statusCode).toBe(400)
    expect(bare.json().errors[0]).toMatchObject({
      additionalParameters: 'package.customFields',
      errorDescription: expect.stringContaining('"Department"'),
    })

    // Bulk: one set of values for the list, required ones refused before anything is sent.
    await page.getByLabel('Bulk mode').check()
    const [b1, b2] = [ups('1000003'), ups('1000004')]
    await scan(page, b1)
    await scan(page, b2)
    await page.getByText(b2, { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Save all' }).click()
    await page.getByRole('alert').filter({ hasText: 'Department is required.' }).first().waitFor()
    await expectFocus(page, `bulk-cf-${ids.department}`)
    expect((await call('GET', `/api/v1/packages/tracking/${b1}`)).statusCode).toBe(404)
    await page.keyboard.type('Chemistry')
    await page.getByRole('button', { name: 'Save all' }).click()
    await page.getByRole('link', { name: b2 }).waitFor({ timeout: 15_000 })
    for (const bn of [b1, b2])
      expect((await record(bn)).customFields).toEqual([
        { customFieldId: ids.department, name: 'Department', status: 'ACTIVE', value: 'Chemistry' },
      ])
  }, 90_000)

  it('a parcel scanned again the day it was handed over or archived says so, and can be opened or received again', async () => {
    const handed = ups('2000001')
    const handedId = await received(handed)
    await a.ok('POST', '/api/v1/pickups', { contactId: ids.ada, typedSignature: 'Ada Lovelace' }, 201)
    const archived = ups('2000002')
    const archivedId = await received(archived)
    await a.ok('PATCH', `/api/v1/packages/${archivedId}/archive`, { archived: true }, 200)
    await expect.poll(() => settled(handedId), { timeout: 15_000 }).toBe(true)
    const arrivalsBefore = arrivalsAbout(handed).length

    const { page } = await atTheDesk()
    await scan(page, handed)
    const told = page.getByRole('alert').filter({ hasText: /Handed over to Ada Lovelace at \d\d:\d\d today\./ })
    await told.waitFor()
    await expect
      .poll(() => page.getByTestId('announce').textContent())
      .toMatch(/Handed over to Ada Lovelace at .* today/)
    expect(await told.getByRole('link', { name: 'Open it' }).getAttribute('href')).toBe(`/console/packages/${handedId}`)
    // Not saved by the next Enter: the focus stays in Scan until the clerk chooses.
    await expectFocus(page, 'receive-scan')
    await page.getByRole('button', { name: 'Receive again as a new arrival' }).click()
    await page.locator('.decoded').getByText('Receiving it again as a new arrival.').waitFor()
    await expect.poll(() => page.getByTestId('announce').textContent()).toContain('receiving it again as a new arrival')
    await page.getByLabel('Department (required)').fill('Returns')
    await page.getByRole('button', { name: 'Save package' }).click()
    await page.getByRole('link', { name: handed }).waitFor({ timeout: 15_000 })
    const again = await record(handed)
    expect(again).toMatchObject({ currentStatus: 'RECEIVED', archived: false, receiver: { contactId: ids.ada } })
    expect(again.packageId).not.toBe(handedId)
    expect(await a.ok('GET', `/api/v1/packages/${handedId}?type=DETAILED`)).toMatchObject({ archived: true })
    // Ada is told of the new arrival, once.
    await expect.poll(() => arrivalsAbout(handed).length, { timeout: 15_000 }).toBe(arrivalsBefore + 1)

    await scan(page, archived)
    await page
      .getByRole('alert')
      .filter({ hasText: /Archived at \d\d:\d\d today\./ })
      .waitFor()
    await page.getByRole('button', { name: 'Receive again as a new arrival' }).click()
    await page.getByLabel('Department (required)').fill('Returns')
    await page.getByRole('combobox', { name: 'Recipient' }).fill('Ada')
    await page.locator('#receive-recipient-list li').first().filter({ hasText: 'Ada' }).waitFor()
    await page.keyboard.press('Enter')
    await page.getByRole('button', { name: 'Save package' }).click()
    await page.getByRole('link', { name: archived }).waitFor({ timeout: 15_000 })
    const archivedAgain = await record(archived)
    expect(archivedAgain).toMatchObject({ currentStatus: 'RECEIVED', archived: false })
    expect(archivedAgain.packageId).not.toBe(archivedId)

    // In bulk mode, the row says it; Save all leaves it until the clerk chooses.
    const inBulk = ups('2000003')
    const inBulkId = await received(inBulk)
    await a.ok('POST', '/api/v1/pickups', { contactId: ids.ada, typedSignature: 'Ada Lovelace' }, 201)
    await page.getByLabel('Bulk mode').check()
    await scan(page, inBulk)
    const row = page.getByRole('row').filter({ hasText: inBulk })
    await row.filter({ hasText: /Handed over to Ada Lovelace at \d\d:\d\d today\./ }).waitFor()
    await page.getByLabel('Department (required)').fill('Returns')
    await page.getByRole('button', { name: 'Save all' }).click()
    await row.filter({ hasText: 'Open it, or receive it again as a new arrival.' }).waitFor()
    expect((await record(inBulk)).packageId).toBe(inBulkId)
    await row.getByRole('button', { name: `Receive ${inBulk} again as a new arrival` }).click()
    await row.filter({ hasText: 'Saved as a new arrival by Save all.' }).waitFor()
    await page.getByRole('button', { name: 'Save all' }).click()
    await page.getByRole('link', { name: inBulk }).waitFor({ timeout: 15_000 })
    const bulkAgain = await record(inBulk)
    expect(bulkAgain).toMatchObject({ currentStatus: 'RECEIVED', archived: false })
    expect(bulkAgain.packageId).not.toBe(inBulkId)
  }, 90_000)

  it('the package screen: damaged with a photo, History with comments, the clerk by name, emails and pickups, a resend', async () => {
    const n = ups('3000001')
    const id = await received(n)
    await expect.poll(() => mailsAbout(n).length, { timeout: 15_000 }).toBe(1)
    const { page } = await atTheDesk()
    await page.goto(`/console/packages/${id}`)
    await expect.poll(() => page.evaluate<string>('document.activeElement?.textContent ?? ""')).toBe(`Package ${n}`)

    // The parcel's custom field values are part of its details.
    await page.getByTestId('custom-field').filter({ hasText: 'Maths' }).waitFor()
    await page.getByLabel('Photo of the damage').setInputFiles({ name: 'dent.png', mimeType: 'image/png', buffer: PNG })
    await page.getByLabel('What is damaged (optional)').fill('Corner crushed')
    await page.getByRole('button', { name: 'Mark damaged' }).click()
    await page.getByRole('status').filter({ hasText: 'Marked damaged, with the photo.' }).waitFor()
    expect(await a.ok('GET', `/api/v1/packages/${id}?type=DETAILED`)).toMatchObject({
      currentStatus: 'DAMAGED',
      damaged: true,
    })
    const damagedAt = (await a.ok('GET', `/api/v1/packages/${id}?type=ACTIVITIES`)).activities.at(-1)
    expect(damagedAt).toMatchObject({
      status: 'DAMAGED',
      comment: 'Corner crushed',
      reportedBy: 'Rita Records',
      images: [expect.objectContaining({ imageType: 'DAMAGE' })],
    })
    const damage = page.getByTestId('history-activity').filter({ hasText: 'DAMAGED' })
    await damage.filter({ hasText: 'by Rita Records' }).filter({ hasText: 'Corner crushed' }).waitFor()
    await damage.getByRole('img', { name: 'damage image' }).waitFor()
    await page.getByTestId('history-email').filter({ hasText: 'Arrival email to ada@records.example: sent' }).waitFor()

    // Ada says the arrival email never came: the clerk sends it again.
    const arrivalOf = async () =>
      (await a.ok('GET', `/api/v1/notifications?packageId=${id}`)).notifications.find(
        (x: { kind: string }) => x.kind === 'ARRIVAL',
      )
    await page.getByRole('button', { name: 'Resend the arrival email to ada@records.example' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: 'Arrival email to ada@records.example will be sent again.' })
      .waitFor()
    await page
      .getByTestId('history-email')
      .filter({ hasText: /Arrival email to ada@records.example: (waiting to be sent|sent)/ })
      .waitFor()
    await expect.poll(() => arrivalsAbout(n).length, { timeout: 15_000 }).toBe(2)
    await expect.poll(async () => (await arrivalOf()).status, { timeout: 15_000 }).toBe('sent')

    // Handed over (typed signature): one History line for the pickup, and the receipt once sent.
    await a.ok('POST', '/api/v1/pickups', { contactId: ids.ada, typedSignature: 'Ada Lovelace' }, 201)
    await expect.poll(() => mailsAbout(n).length, { timeout: 15_000 }).toBe(3)
    await page.reload()
    await page
      .getByTestId('history-pickup')
      .filter({ hasText: 'Picked up by Ada Lovelace · signature typed: Ada Lovelace' })
      .waitFor()
    expect(await page.getByTestId('history-pickup').count()).toBe(1)
    await page.getByTestId('history-email').filter({ hasText: 'Receipt to ada@records.example: sent' }).waitFor()
    await expectAccessible(page, 'package 1366')
  }, 90_000)

  for (const [size, viewport] of [
    ['1366×768', WIDE],
    ['390×844', PHONE],
  ] as const) {
    it(`Receive (fields, a parcel handed over today), bulk, package and hand-over at ${size}: axe, no sideways scroll`, async () => {
      const n = ups(`4${viewport.width}1`)
      const id = await received(n)
      await a.ok('POST', '/api/v1/pickups', { contactId: ids.ada, typedSignature: 'Ada Lovelace' }, 201)
      const { page } = await atTheDesk(viewport)
      await scan(page, n)
      await page.getByRole('button', { name: 'Receive again as a new arrival' }).waitFor()
      await page.getByRole('button', { name: 'Receive again as a new arrival' }).click()
      await page.getByLabel('Department (required)').waitFor()
      await expectAccessible(page, `receive ${size}`)
      if (viewport === PHONE) await noSidewaysScroll(page)
      await page.getByRole('button', { name: 'Cancel' }).click()

      await page.getByLabel('Bulk mode').check()
      await scan(page, ups(`5${viewport.width}1`))
      await page.getByRole('button', { name: 'Save all' }).click()
      await page.getByRole('alert').filter({ hasText: 'Department is required.' }).first().waitFor()
      await expectAccessible(page, `receive bulk ${size}`)
      if (viewport === PHONE) await noSidewaysScroll(page)

      await page.goto(`/console/packages/${id}`)
      await page.getByTestId('history-pickup').waitFor()
      await expectAccessible(page, `package ${size}`)
      if (viewport === PHONE) await noSidewaysScroll(page)

      const waiting = await received(ups(`6${viewport.width}1`))
      await page.getByRole('link', { name: 'Hand over' }).click()
      await expectFocus(page, 'pickup-find')
      await page.keyboard.type('Ada Lo')
      await page.getByRole('option', { name: /Ada Lovelace/ }).waitFor()
      await page.keyboard.press('ArrowDown')
      await page.keyboard.press('Enter')
      await page
        .getByRole('checkbox', { name: /1Z999AA101/ })
        .first()
        .waitFor()
      await page.getByRole('button', { name: 'Hand over' }).click()
      await page.getByText('Signature required').first().waitFor()
      await expectAccessible(page, `hand over ${size}`)
      if (viewport === PHONE) await noSidewaysScroll(page)
      await screenshot(page, `desk-records-${viewport.width}`)
      expect((await a.ok('GET', `/api/v1/packages/${waiting}?type=DETAILED`)).currentStatus).toBe('RECEIVED')
    }, 90_000)
  }
})
