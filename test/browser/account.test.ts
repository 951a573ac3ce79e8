import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { DESKTOP, TABLET, expectAccessible, screenshot, signIn, useConsole } from './support.js'

// Account in Chromium, for any signed-in person (a clerk here): the browsers they are signed in on,
// signing out another one, and changing their own password with the refusals under their field.

const h = useConsole()
let client: TestClient
const clerk = { email: 'clerk@account.example', password: 'clerk password 123' }
const NEW_PASSWORD = 'a much longer passphrase 456'

beforeAll(async () => {
  client = await h.t.newClient('account-desk')
  await createUser(h.t, client, { ...clerk, role: 'clerk' })
})

describe('the account page', () => {
  it('lists where the clerk is signed in and signs out the other browser', async () => {
    const tablet = await h.open(TABLET)
    await signIn(tablet.page, clerk.email, clerk.password)
    const desk = await h.open(DESKTOP)
    await signIn(desk.page, clerk.email, clerk.password)
    await desk.page.getByRole('link', { name: 'Account' }).click()
    await desk.page.getByRole('heading', { name: 'Account', exact: true }).waitFor()
    const rows = desk.page.getByRole('table').getByRole('row')
    await expect.poll(() => rows.count()).toBe(3) // the header and two sessions
    await desk.page.getByText('This browser').waitFor()
    const others = desk.page.getByRole('button', { name: /^Sign out .*signed in/ })
    expect(await others.count()).toBe(1)
    await expectAccessible(desk.page, 'account')
    await screenshot(desk.page, 'account-desktop')

    await others.click()
    const dialog = desk.page.getByRole('dialog')
    await dialog.waitFor()
    await expectAccessible(desk.page, 'account (sign out confirmation)')
    await dialog.getByRole('button', { name: 'Yes, sign out' }).click()
    await desk.page.getByText(/signed out\.$/).waitFor()
    await expect.poll(() => rows.count()).toBe(2)
    expect(await others.count()).toBe(0)

    // The tablet's session is gone on the server: its next call asks to sign in again.
    await tablet.page.getByRole('link', { name: 'Packages' }).click()
    await tablet.page.getByRole('button', { name: 'Sign in' }).waitFor()
    expect(h.pageErrors).toEqual([])
    await tablet.context.close()
    await desk.context.close()
  })

  it('changes the password: a wrong current one is shown under its field, then the new one signs in', async () => {
    const { context, page } = await h.open(TABLET)
    await signIn(page, clerk.email, clerk.password)
    await page.goto('/console/account')
    const current = page.getByLabel('Current password')
    await current.fill('not my password')
    await page.getByLabel('New password').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await expect.poll(() => current.getAttribute('aria-invalid')).toBe('true')
    const errorId = (await current.getAttribute('aria-describedby'))!.split(' ')[0]!
    expect(await page.locator(`[id="${errorId}"]`).isVisible()).toBe(true)
    expect(await page.getByLabel('New password').getAttribute('aria-invalid')).toBeNull()
    await expectAccessible(page, 'account (password refused)')
    await screenshot(page, 'account-password-refused-tablet')

    await current.fill(clerk.password)
    await page.getByLabel('New password').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.getByText('Password changed. Your other sessions are signed out.').waitFor()
    expect(await current.getAttribute('aria-invalid')).toBeNull()
    // The list is read again: only this browser is left in it.
    await expect.poll(() => page.getByRole('button', { name: /^Sign out .+/ }).count()).toBe(0)

    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    await page.getByLabel('Email').fill(clerk.email)
    await page.getByLabel('Password').fill(clerk.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    // Refused: the error (not the "signed out" notice) and no session.
    await page.locator('.alert:not(.info)').waitFor()
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0)
    await signIn(page, clerk.email, NEW_PASSWORD)
    expect(h.pageErrors).toEqual([])
    await context.close()
  })
})
