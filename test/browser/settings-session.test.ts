import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser, signIn as apiSignIn } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { DESKTOP, expectAccessible, screenshot, signIn, useConsole } from './support.js'

// Issue 25.6, the session side, in Chromium: a generated password is changed before anything else;
// the clerk is warned before the session ends (and may stay when idleness is the reason); when it
// ends, the screen's unsaved work (the decoded parcel, its recipient, its shelf) is back after
// signing in again, and saving it records what was typed.

const h = useConsole()
let client: TestClient
let hq: string
const clerk = { email: 'clerk@session.example', password: 'clerk password 123' }
const UPS = '1Z999AA10123456784'

beforeAll(async () => {
  client = await h.t.newClient('settings-session')
  const a = api(h.t, client)
  const locationId = await a.location('Campus')
  hq = await a.site({ type: 'site', name: 'HQ', locationId, primary: true })
  await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Ada Lovelace', email: 'ada@example.org' })
  await createUser(h.t, client, { ...clerk, role: 'clerk' })
})

async function signInByHand(page: Page, email: string, password: string) {
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/** The clerk is called away: warned, the idle session ends (on the server too), then the clerk signs in again. */
async function awayUntilSignedOutThenBack(page: Page) {
  await page.clock.fastForward('23:30')
  await page.getByRole('alert').filter({ hasText: 'for lack of activity' }).waitFor()
  h.t.clock.advance(31 * 60_000)
  await page.clock.fastForward('02:00')
  await page.getByRole('heading', { name: 'Sign in to mailroom' }).waitFor()
  await signInByHand(page, clerk.email, clerk.password)
}

describe('the session in the console', () => {
  it('a generated password opens only the change-password screen until the user chooses their own', async () => {
    const created = await h.t.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: client.auth,
      payload: { email: 'new@session.example', role: 'clerk' },
    })
    const generated: string = created.json().password
    const { page } = await h.open(DESKTOP)
    await page.goto('/console/packages')
    await signInByHand(page, 'new@session.example', generated)
    await page.getByRole('heading', { name: 'Choose your password' }).waitFor()
    // Nothing else: no navigation, no screen.
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0)
    await expectAccessible(page, 'choose your password')
    await screenshot(page, 'settings-password-first')

    await page.getByLabel('Generated password').fill(generated)
    await page.getByLabel('New password', { exact: true }).fill('my own password 1')
    await page.getByLabel('New password again').fill('my own password 2')
    await page.getByRole('button', { name: 'Set my password' }).click()
    await page.getByText('The two new passwords differ.').waitFor()
    await page.getByLabel('New password again').fill('my own password 1')
    await page.getByRole('button', { name: 'Set my password' }).click()
    await page.getByRole('heading', { name: 'Packages', exact: true }).waitFor()
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(1)

    // The server agrees: the new password signs in with nothing left to change.
    const s = await apiSignIn(h.t, 'new@session.example', 'my own password 1')
    const session = await h.t.inject({ method: 'GET', url: '/console/api/session', cookies: s.cookies })
    expect(session.json().mustChangePassword).toBe(false)
    expect(h.pageErrors).toEqual([])
  })

  it('warns before an idle session ends; “Stay signed in” renews it', async () => {
    const { page } = await h.open(DESKTOP)
    await page.clock.install()
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/account')
    await page.getByRole('heading', { name: 'Account' }).waitFor()
    // 30 idle minutes (the test app's) less the server's 5-minute renewal step: a session surely lasts
    // 25 minutes without a request, and the warning comes two minutes before that.
    await page.clock.fastForward('23:30')
    const warning = page.getByRole('alert').filter({ hasText: 'for lack of activity' })
    await warning.waitFor()
    await expectAccessible(page, 'session warning')
    await screenshot(page, 'settings-session-warning')
    h.t.clock.advance(23.5 * 60_000)
    await warning.getByRole('button', { name: 'Stay signed in' }).click()
    await warning.waitFor({ state: 'detached' })

    // Staying each time, the clerk reaches the session's absolute end (12 hours): announced, no renewal.
    for (let i = 0; i < 29; i++) {
      await page.clock.fastForward('23:30')
      h.t.clock.advance(23.5 * 60_000)
      await warning.getByRole('button', { name: 'Stay signed in' }).click()
      await warning.waitFor({ state: 'detached' })
    }
    // 705 minutes in: the absolute end (720) comes before the idle one (730), warned two minutes ahead.
    await page.clock.fastForward('13:30')
    const last = page.getByRole('alert').filter({ hasText: 'cannot be renewed' })
    await last.waitFor()
    expect(await last.getByRole('button').count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true)
  })

  it('keeps the Receive screen’s unsaved parcel through the end of the session and a new sign-in', async () => {
    const { page } = await h.open(DESKTOP)
    await page.clock.install()
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/receive')
    await page.getByLabel('Location', { exact: true }).selectOption({ label: 'HQ' })
    await page.getByLabel('Scan').fill(UPS)
    await page.getByLabel('Scan').press('Enter')
    await page.getByTestId('decoded-tracking').waitFor()
    await page.getByLabel('Shelf').fill('B-2')
    const recipient = page.getByRole('combobox', { name: 'Recipient' })
    await recipient.fill('Ada')
    await page.getByRole('option', { name: /Ada Lovelace/ }).waitFor()
    // Choosing her asks for her holds; that answer comes only after the clerk has gone (a call in
    // flight when the laptop closed). It renewed the session when the server took it, not when it
    // came back: the console must not count the answer's time as activity.
    let answerHolds = () => {}
    let holdsAsked = () => {}
    const asked = new Promise<void>((resolve) => (holdsAsked = resolve))
    await page.route('**/contacts/*/holds', async (route) => {
      holdsAsked()
      await new Promise<void>((go) => (answerHolds = go))
      await route.continue()
    })
    await recipient.press('Enter')
    await expect.poll(() => recipient.inputValue()).toBe('Ada Lovelace')
    await asked

    // The clerk is called away: warned, then the idle session ends (on the server too).
    await page.clock.fastForward('23:30')
    const late = page.waitForResponse('**/contacts/*/holds')
    answerHolds()
    await late
    await page.getByRole('alert').filter({ hasText: 'for lack of activity' }).waitFor()
    h.t.clock.advance(31 * 60_000)
    await page.clock.fastForward('02:00')
    await page.getByRole('heading', { name: 'Sign in to mailroom' }).waitFor()
    await page.getByText('What you typed on this screen is kept.').waitFor()
    const storedDraft = await page.evaluate<string | null>("sessionStorage.getItem('mailroom.draft')")
    expect(storedDraft).toContain(UPS)

    await signInByHand(page, clerk.email, clerk.password)
    await page.getByRole('heading', { name: 'Receive' }).waitFor()
    await expect
      .poll(() =>
        page
          .getByTestId('decoded-tracking')
          .textContent()
          .catch(() => ''),
      )
      .toBe(UPS)
    await expect.poll(() => page.getByRole('combobox', { name: 'Recipient' }).inputValue()).toBe('Ada Lovelace')
    await expect.poll(() => page.getByLabel('Shelf').inputValue()).toBe('B-2')
    await page.getByText('Your unsaved work on this screen was restored.').waitFor({ state: 'attached' })
    expect(await page.evaluate<string | null>("sessionStorage.getItem('mailroom.draft')")).toBeNull()

    // Saved as typed before the session ended.
    await page.getByRole('button', { name: 'Save package' }).click()
    await page.getByRole('link', { name: UPS }).waitFor()
    // The test clock moved hours on: the API client takes a fresh token.
    const fresh = await h.t.refresh(client)
    const res = await h.t.inject({ method: 'GET', url: `/api/v1/packages/tracking/${UPS}`, headers: fresh.auth })
    expect(res.statusCode, res.body).toBe(200)
    const record = res.json()
    expect(JSON.stringify(record)).toContain('Ada Lovelace')
    expect(JSON.stringify(record)).toContain('B-2')
    expect(h.pageErrors).toEqual([])
  })

  it('keeps the hand-over’s recipient and typed signature through the end of the session', async () => {
    const a = api(h.t, await h.t.refresh(client))
    const kay = await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Kay Board' })
    const parcel = await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: '1ZHANDDRAFT0001', receiver: { contactId: kay.contactId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: hq } },
    })
    const { page } = await h.open(DESKTOP)
    await page.clock.install()
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/pickup')
    const find = page.getByRole('combobox', { name: 'Pickup code or recipient' })
    await find.fill('Kay Bo')
    await page.getByRole('option', { name: /Kay Board/ }).waitFor()
    await find.press('Enter')
    await page.getByRole('checkbox', { name: /1ZHANDDRAFT0001/ }).waitFor()
    await page.locator('#pickup-typed').fill('Kay Board')

    await awayUntilSignedOutThenBack(page)
    await page.getByRole('heading', { name: 'Hand over' }).waitFor()
    await expect.poll(() => find.inputValue()).toBe('Kay Board')
    await page.getByRole('checkbox', { name: /1ZHANDDRAFT0001/ }).waitFor()
    await expect.poll(() => page.locator('#pickup-typed').inputValue()).toBe('Kay Board')

    await page.getByRole('button', { name: 'Hand over' }).click()
    await page.getByText('Handed over 1 parcel to Kay Board').waitFor()
    const fresh = api(h.t, await h.t.refresh(client))
    const { activities } = await fresh.ok('GET', `/api/v1/packages/${parcel.packageId}?type=ACTIVITIES`)
    const delivered = activities.find((x: { status: string }) => x.status === 'DELIVERED')
    expect(delivered.comment).toContain('Signature typed by the collector: Kay Board')
    expect(h.pageErrors).toEqual([])
  })

  it('keeps a drawn signature through the end of the session: drawn back, and handed over with it', async () => {
    const a = api(h.t, await h.t.refresh(client))
    const lin = await a.ok('POST', '/api/v1/contacts', { contactType: 'RECEIVER', name: 'Lin Sketch' })
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: '1ZDRAWNDRAFT01', receiver: { contactId: lin.contactId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: hq } },
    })
    const { page } = await h.open(DESKTOP)
    await page.clock.install()
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/pickup')
    const find = page.getByRole('combobox', { name: 'Pickup code or recipient' })
    await find.fill('Lin Sk')
    await page.getByRole('option', { name: /Lin Sketch/ }).waitFor()
    await find.press('Enter')
    await page.getByRole('checkbox', { name: /1ZDRAWNDRAFT01/ }).waitFor()
    // The collector signs on the pad with a pointer.
    const pad = page.locator('#signature-pad')
    const box = (await pad.boundingBox())!
    await page.mouse.move(box.x + 20, box.y + box.height / 2)
    await page.mouse.down()
    for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + 20 + i * 25, box.y + box.height / 2 + (i % 2) * 20)
    await page.mouse.up()
    expect(await pad.getAttribute('data-drawn')).toBe('true')

    await awayUntilSignedOutThenBack(page)
    await page.getByRole('heading', { name: 'Hand over' }).waitFor()
    await page.getByRole('checkbox', { name: /1ZDRAWNDRAFT01/ }).waitFor()
    await expect.poll(() => page.locator('#signature-pad').getAttribute('data-drawn')).toBe('true')

    await page.getByRole('button', { name: 'Hand over' }).click()
    await page.getByText('Handed over 1 parcel to Lin Sketch').waitFor()
    const fresh = api(h.t, await h.t.refresh(client))
    const { pickups } = await fresh.ok('GET', `/api/v1/pickups?contactId=${lin.contactId as string}`)
    expect(pickups).toHaveLength(1)
    expect(pickups[0].images.map((i: { imageType: string }) => i.imageType)).toEqual(['SIGNATURE'])
    expect(h.pageErrors).toEqual([])
  })
})
