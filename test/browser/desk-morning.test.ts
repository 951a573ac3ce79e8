import type { BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fedexCheckDigit, gs1CheckDigit, s10CheckDigit, upsCheckDigit } from '../../src/decode/index.js'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { TestSmtpServer } from '../notifications/support/smtp.js'
import { expectAccessible, screenshot, signIn, useConsole } from './support.js'

// Issue 25 (items 1–3, 9 for Receive): a clerk's morning at the Receive desk, typed as a
// keyboard-wedge scanner types (keys + Enter), through a network drop, a reload with scans queued,
// a lost answer, a garbage scan and a recipient who is not on file yet. What counts is what the
// API and the recipients' mailboxes show afterwards, not only what the page says.

const GS = '\x1d'
const RS = '\x1e'
const EOT = '\x04'
const MEMO = 'ROOMMEMOFORMARGARET'
const WIDE = { width: 1366, height: 768 }
const PHONE = { width: 390, height: 844 }

const ups = (serial: string) => {
  const body = `1Z999AA101${serial}`
  return body + upsCheckDigit(body.slice(2))
}
const pic94 = (serial: string) => {
  const body = `94001112010${serial}`
  return body + gs1CheckDigit(body)
}
const pic92 = (serial: string) => {
  const body = `92612927007${serial}`
  return body + gs1CheckDigit(body)
}
const fedex12 = (serial: string) => serial + fedexCheckDigit(serial)
const s10 = (serial: string) => `RR${serial}${s10CheckDigit(serial)}US`
const spaced = (n: string) => n.replace(/(.{4})/g, '$1 ').trim()
/** A FedEx 2D label (ISO 15434 format 01) whose ship-to is JOHN DOE. */
const fedex2d = (n: string) =>
  `[)>${RS}01${GS}02${GS}38017${GS}840${GS}01${GS}${n}${GS}FDEB${GS}123456789${GS}200${GS}${GS}1/2${GS}7.00LB${GS}N${GS}9185 GRANT AVE${GS}COLLIERVILLE${GS}TN${RS}06${GS}10ZED008${GS}11ZJOHN DOE${GS}12Z9015551234${RS}${EOT}`

interface Parcel {
  /** What the scanner types. */
  scan: string
  /** The tracking number the package must be saved under. */
  number: string
  /** Typed into Recipient and picked; undefined when the label names the recipient (2D). */
  to?: string
  /** Who the package must be for. */
  who: 'ada' | 'grace' | 'john'
}

const smtp = new TestSmtpServer()
const env: Record<string, string> = { MAILROOM_PUBLIC_URL: 'https://mailroom.example.test' }
beforeAll(async () => {
  await smtp.start()
  env.SMTP_URL = smtp.url
})
afterAll(() => smtp.close())
const h = useConsole(env)
let client: TestClient
const ids: Record<string, string> = {}
const clerk = { email: 'morning@desk.example', password: 'morning password 123' }
let parcels: Parcel[] = []
let stopNotifications: (() => unknown) | undefined
afterAll(async () => {
  await stopNotifications?.()
})

beforeAll(async () => {
  client = await h.t.newClient('morning-desk')
  const a = api(h.t, client)
  const locationId = await a.location('Hall')
  await a.site({ type: 'site', name: 'Hall desk', locationId, primary: true })
  const contact = async (name: string, email: string) =>
    (await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name, email })).contactId as string
  ids.ada = await contact('Ada Lovelace', 'ada@morning.example')
  ids.grace = await contact('Grace Hopper', 'grace@morning.example')
  ids.john = await contact('John Doe', 'john@morning.example')
  await a.ok(
    'PUT',
    '/api/v1/notifications/settings',
    {
      enabled: true,
      arrivalBatchSeconds: 0,
      reminderAfterHours: [],
      finalNoticeAfterHours: null,
      templates: {},
    },
    200,
  )
  await createUser(h.t, client, { ...clerk, role: 'clerk', name: 'Morning Clerk' })
  // The notification worker, as `serve` runs it: arrival emails go out as the parcels are saved.
  stopNotifications = h.t.ctx.notifications.start()
  const mr = async () => (await a.ok('POST', '/api/v1/trackingNumbers', undefined, 200)).trackingNumber as string
  const [mr1, mr2] = [await mr(), await mr()]
  const p = (scan: string, number: string, who: Parcel['who']): Parcel => ({
    scan,
    number,
    who,
    to: { ada: 'Ada', grace: 'Grace', john: 'John' }[who],
  })
  parcels = [
    // 1–10: online.
    p(ups('0100000'), ups('0100000'), 'ada'),
    p(spaced(ups('0100001')), ups('0100001'), 'grace'),
    p(`42090210${GS}${pic94('1000000001')}`, pic94('1000000001'), 'ada'),
    p(`]C1420902101234${GS}${pic94('1000000002')}`, pic94('1000000002'), 'john'),
    p(ups('0100002'), ups('0100002'), 'grace'), // 5: its answer is lost
    { scan: fedex2d(fedex12('98657878880')), number: fedex12('98657878880'), who: 'john' },
    p(spaced(pic94('1000000003')), pic94('1000000003'), 'ada'),
    p(s10('12345678'), s10('12345678'), 'grace'),
    p(pic92('1000000001'), pic92('1000000001'), 'ada'),
    p(mr1, mr1, 'john'),
    // 11–20: the network is down.
    p(ups('0100003'), ups('0100003'), 'ada'),
    p(`42090210${GS}${pic94('1000000004')}`, pic94('1000000004'), 'grace'),
    { scan: fedex2d(fedex12('98657878881')), number: fedex12('98657878881'), who: 'john' },
    p(spaced(ups('0100004')), ups('0100004'), 'ada'),
    p(s10('12345679'), s10('12345679'), 'grace'),
    p(pic92('1000000002'), pic92('1000000002'), 'john'),
    p(`]C142090210${GS}${pic92('1000000003')}`, pic92('1000000003'), 'ada'),
    p(ups('0100005'), ups('0100005'), 'grace'),
    p(fedex12('12345678901'), fedex12('12345678901'), 'ada'),
    p(pic94('1000000005'), pic94('1000000005'), 'john'),
    // 21–30: back online.
    p(ups('0100006'), ups('0100006'), 'grace'),
    p(`420902101234${GS}${pic92('1000000004')}`, pic92('1000000004'), 'ada'),
    { scan: fedex2d(fedex12('98657878882')), number: fedex12('98657878882'), who: 'john' },
    p(spaced(pic94('1000000006')), pic94('1000000006'), 'grace'),
    p(s10('12345680'), s10('12345680'), 'ada'),
    p(mr2, mr2, 'grace'),
    p(ups('0100007'), ups('0100007'), 'john'),
    p(`]C142090210${GS}${pic94('1000000007')}`, pic94('1000000007'), 'ada'),
    p(fedex12('12345678902'), fedex12('12345678902'), 'grace'),
    p(ups('0100008'), ups('0100008'), 'ada'),
  ]
})

const focusedId = (page: Page) => page.evaluate<string>("document.activeElement?.id ?? ''")
const expectFocus = (page: Page, id: string) => expect.poll(() => focusedId(page), { timeout: 10_000 }).toBe(id)

/** A keyboard-wedge scan: the scanner types the text and Enter into whatever has the focus. */
async function wedgeScan(page: Page, text: string) {
  await page.keyboard.type(text)
  await page.keyboard.press('Enter')
}

/** One parcel as the clerk receives it: scan, name (type-ahead, Enter picks), Enter saves. */
async function receive(page: Page, parcel: Parcel, offline = false) {
  await expectFocus(page, 'receive-scan')
  await wedgeScan(page, parcel.scan)
  if (!parcel.to && offline) {
    // Offline, a 2D label is decoded when sent (its recipient with it): Enter leaves the name empty.
    await expectFocus(page, 'receive-recipient')
    await page.keyboard.press('Enter')
  } else if (parcel.to) {
    await expectFocus(page, 'receive-recipient')
    await page.keyboard.type(parcel.to)
    await page.locator('#receive-recipient-list li').first().filter({ hasText: parcel.to }).waitFor()
    await page.keyboard.press('Enter')
  }
  await expectFocus(page, 'save-package')
  await page.keyboard.press('Enter')
  await expectFocus(page, 'receive-scan')
}

const waitingText = (page: Page) =>
  page
    .getByTestId('waiting-count')
    .textContent({ timeout: 1_000 })
    .catch(() => '')

async function noSidewaysScroll(page: Page) {
  const [scroll, client] = await page.evaluate<[number, number]>(
    '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
  )
  expect(scroll, 'page width at 390 px').toBeLessThanOrEqual(client)
}

async function get(url: string) {
  const res = await h.t.inject({ method: 'GET', url, headers: client.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** Signed in, on Receive (reached through the navigation: the focus lands in Scan), location chosen. */
async function atTheDesk(viewport = WIDE): Promise<{ context: BrowserContext; page: Page }> {
  const { context, page } = await h.open(viewport)
  await signIn(page, clerk.email, clerk.password)
  await page.getByRole('link', { name: 'Receive' }).click()
  await page.getByRole('heading', { name: 'Receive' }).waitFor()
  await expectFocus(page, 'receive-scan')
  await page.getByLabel('Location', { exact: true }).selectOption({ label: 'Hall desk' })
  await page.getByLabel('Shelf').fill('A-3')
  await page.getByLabel('Scan').focus()
  return { context, page }
}

describe('a morning at the Receive desk', () => {
  it('30 parcels through a network drop, a reload and a lost answer: each saved once, nobody told twice', async () => {
    const { context, page } = await atTheDesk()

    // 1–4 online.
    for (const parcel of parcels.slice(0, 4)) await receive(page, parcel)
    // 5: the server saves it but the answer is lost on the way back; the queue retries with its key.
    let lost = 0
    await page.route('**/api/v1/packages', async (route) => {
      if (route.request().method() !== 'POST' || lost > 0) return route.fallback()
      lost++
      await route.fetch()
      await route.abort('connectionreset')
    })
    await receive(page, parcels[4]!)
    await page.getByRole('link', { name: parcels[4]!.number }).waitFor({ timeout: 15_000 })
    expect(lost).toBe(1)
    await page.unroute('**/api/v1/packages')
    for (const parcel of parcels.slice(5, 10)) await receive(page, parcel)

    // A garbage scan: said so, and not saved without the clerk's confirmation; the next scan replaces it.
    await wedgeScan(page, 'HELLO WORLD')
    await page.getByText('Not a known carrier format — receive as internal item?').first().waitFor()
    await expectFocus(page, 'receive-scan')
    expect(await page.getByRole('button', { name: 'Save package' }).count()).toBe(0)
    await expectAccessible(page, 'receive (unknown format) 1366')

    // 11–20: the network drops; the desk keeps receiving into the browser's queue.
    await context.setOffline(true)
    for (const parcel of parcels.slice(10, 20)) await receive(page, parcel, true)
    await expect.poll(() => waitingText(page)).toContain('10 waiting to send')

    // A reload while they wait (the network is back but saves still fail): nothing is lost.
    await context.route('**/api/v1/packages', (route) =>
      route.request().method() === 'POST' ? route.abort('connectionrefused') : route.fallback(),
    )
    await context.setOffline(false)
    await page.reload()
    await page.getByRole('heading', { name: 'Receive' }).waitFor()
    await expect.poll(() => waitingText(page), { timeout: 10_000 }).toContain('10 waiting to send')
    await context.unroute('**/api/v1/packages')
    await page.getByRole('button', { name: 'Send now' }).click()
    await expect.poll(() => page.getByTestId('waiting-count').count(), { timeout: 20_000 }).toBe(0)
    expect(await page.getByTestId('conflict').count()).toBe(0)

    // 21–30 online again.
    await page.getByLabel('Scan').focus()
    for (const parcel of parcels.slice(20, 30)) await receive(page, parcel)
    await expect.poll(() => page.locator('.saved li').count(), { timeout: 15_000 }).toBe(20)
    await screenshot(page, 'receive-morning')

    // Through the API: every parcel once, for the right person, carrier set (never unknown), no junk.
    for (const parcel of parcels) {
      const pkg = await get(`/api/v1/packages/tracking/${encodeURIComponent(parcel.number)}`)
      expect(pkg.receiver?.contactId, parcel.number).toBe(ids[parcel.who])
      expect(pkg.carrier?.carrierId, parcel.number).toBeTruthy()
    }
    const res = await h.t.inject({
      method: 'POST',
      url: '/api/v1/packages/search?size=100&sort=trackingNumber,ASC',
      headers: client.auth,
      payload: {},
    })
    expect(res.statusCode, res.body).toBe(200)
    const all = res.json()
    const numbers = (all.packages as Array<{ trackingNumber: string }>).map((p) => p.trackingNumber).sort()
    expect(numbers).toEqual(parcels.map((p) => p.number).sort())
    expect(JSON.stringify(all)).not.toContain('HELLO')
    // A routed IMpb is USPS with certainty; a bare 92 IMpb is saved under its best reading (USPS).
    expect((await get(`/api/v1/packages/tracking/${pic92('1000000003')}`)).carrier.carrierId).toBe('USPS')
    expect((await get(`/api/v1/packages/tracking/${pic92('1000000001')}`)).carrier.carrierId).toBe('USPS')

    // Every recipient told once per parcel: each number in exactly one arrival email, to its person.
    // (Parcels saved together, as the queue sends them, may share one email.)
    const told = (n: string) => smtp.received.some((m) => (m.mail.text ?? '').includes(n))
    await expect.poll(() => parcels.every((p) => told(p.number)), { timeout: 30_000 }).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 1_000)) // a duplicate would come soon after
    for (const parcel of parcels) {
      const mails = smtp.received.filter((m) => (m.mail.text ?? '').includes(parcel.number))
      expect(mails.length, parcel.number).toBe(1)
      expect(JSON.stringify(mails[0]!.mail.to), parcel.number).toContain(`${parcel.who}@`)
    }
  }, 240_000)

  it('an unknown recipient is added inline; a confirmed internal item is emailed as an item with no carrier', async () => {
    const { page } = await atTheDesk()
    smtp.clear()
    await wedgeScan(page, 'ROOM MEMO FOR MARGARET')
    await page.getByText('Not a known carrier format — receive as internal item?').first().waitFor()
    await page.getByRole('button', { name: 'Receive as internal item' }).click()
    await expectFocus(page, 'receive-recipient')
    await page.keyboard.type('Margaret Hamilton')
    // Seen and announced: the message is a live region (role=status).
    await page.getByRole('status').filter({ hasText: 'No match for “Margaret Hamilton”.' }).waitFor()
    // Saving now would lose the name: refused, said so.
    await page.getByRole('button', { name: 'Save package' }).click()
    await page.getByRole('alert').filter({ hasText: 'No match for "Margaret Hamilton"' }).waitFor()
    await expectAccessible(page, 'receive (no match) 1366')
    await page.getByRole('button', { name: 'Add contact' }).click()
    await page.getByLabel('Email').fill('margaret@morning.example')
    await page.getByLabel('Phone').fill('+1 555 0100')
    await page.getByRole('button', { name: 'Add and use' }).click()
    await expectFocus(page, 'save-package')
    await page.keyboard.press('Enter')
    // Saved under the number as the server normalises it (no spaces).
    await page.getByRole('link', { name: MEMO }).waitFor({ timeout: 15_000 })

    const { contacts } = await get('/api/v1/contacts?query=Margaret&contactType=RECEIVER')
    expect(contacts).toEqual([
      expect.objectContaining({ name: 'Margaret Hamilton', email: 'margaret@morning.example', phone: '+1 555 0100' }),
    ])
    const pkg = await get(`/api/v1/packages/tracking/${MEMO}`)
    expect(pkg).toMatchObject({ receiver: { contactId: contacts[0].contactId }, carrier: { carrierId: 'MAILROOM' } })
    const [mail] = await smtp.waitFor(1, 15_000)
    expect(mail!.mail.subject).toMatch(/^An item is waiting for you/)
    expect(mail!.mail.text).toContain('An item has arrived for you')
    expect(mail!.mail.text).not.toMatch(/Mailroom \(internal\)|parcel/i)
  }, 60_000)

  for (const [size, viewport] of [
    ['1366×768', WIDE],
    ['390×844', PHONE],
  ] as const) {
    it(`Receive, single and bulk, at ${size}: no serious axe violation, nothing scrolls sideways, targets touchable`, async () => {
      const { page } = await atTheDesk(viewport)
      const n = (i: number) => pic92(`${viewport.width}${i}`.padStart(10, '0'))
      // A decoded parcel with candidates one key away, the Saved list, a refused scan's alert.
      await receive(page, { scan: n(1), number: n(1), to: 'Grace', who: 'grace' })
      await page.getByRole('link', { name: n(1) }).waitFor({ timeout: 15_000 })
      await wedgeScan(page, n(2))
      await expectFocus(page, 'receive-recipient')
      expect(await page.getByRole('combobox', { name: 'Carrier' }).inputValue()).toBe('USPS')
      await expect.poll(() => page.getByTestId('announce').textContent()).toContain('USPS (or FedEx')
      await expectAccessible(page, `receive single ${size}`)
      if (viewport === PHONE) await noSidewaysScroll(page)
      // Touch: every button and field of the screen at least 24 px high (WCAG 2.5.8).
      const small = await page.evaluate<string[]>(
        `[...document.querySelectorAll('main button, main input, main select')]
          .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().height < 24)
          .map((e) => e.outerHTML.slice(0, 80))`,
      )
      expect(small).toEqual([])
      await page.getByRole('button', { name: 'Cancel' }).click()

      await page.getByLabel('Bulk mode').check()
      await page.locator('#receive-scan').focus()
      await wedgeScan(page, n(3))
      await wedgeScan(page, 'HELLO WORLD')
      await page.getByRole('button', { name: 'Receive as internal item' }).waitFor()
      expect(await page.getByRole('combobox', { name: `Carrier for ${n(3)}` }).inputValue()).toBe('USPS')
      await expectAccessible(page, `receive bulk ${size}`)
      if (viewport === PHONE) await noSidewaysScroll(page)
      await screenshot(page, `receive-bulk-${viewport.width}`)
    }, 60_000)
  }
})
