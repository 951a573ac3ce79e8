import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { DESKTOP, expectAccessible, screenshot, signIn, useConsole } from './support.js'

// The desk's guards in Chromium (moved from desk.test.ts): a clerk is refused the admin pages by the
// server itself, writes need the CSRF token, and an idle session asks to sign in again.

const UPS = '1Z999AA10123456784'
const h = useConsole()
let hq: string
const clerk = { email: 'clerk@desk-access.example', password: 'clerk password 123' }

beforeAll(async () => {
  const client = await h.t.newClient('desk-access')
  const a = api(h.t, client)
  const locationId = await a.location('Tower')
  hq = await a.site({ type: 'site', name: 'HQ', locationId, primary: true })
  await createUser(h.t, client, { ...clerk, role: 'clerk', name: 'Desk Clerk' })
})

const focusedId = (page: Page) => page.evaluate<string>("document.activeElement?.id ?? ''")
const expectFocus = (page: Page, id: string) => expect.poll(() => focusedId(page), { timeout: 5_000 }).toBe(id)

/** A keyboard-wedge scan: the scanner types the text and Enter into whatever has the focus. */
async function wedgeScan(page: Page, text: string) {
  await page.keyboard.type(text)
  await page.keyboard.press('Enter')
}

describe('the desk refuses what a clerk may not do', () => {
  it('a clerk cannot use the admin pages: no link, and the server itself answers 403', async () => {
    const { context, page } = await h.open(DESKTOP)
    await signIn(page, clerk.email, clerk.password)
    expect(await page.getByRole('link', { name: 'Admin' }).count()).toBe(0)
    await page.goto('/console/admin/users')
    await page.getByText('Your role does not allow this: ask an administrator.').waitFor()
    await screenshot(page, 'admin-refused')
    // The same cookie, straight at the API: refused by the server, not only hidden.
    const { csrfToken } = (await (await page.request.get('/console/api/session')).json()) as { csrfToken: string }
    expect((await page.request.get('/api/v1/users')).status()).toBe(403)
    const create = await page.request.post('/api/v1/users', {
      headers: { 'x-csrf-token': csrfToken },
      data: { email: 'sneaky@desk.example', role: 'admin', password: 'sneaky password 1' },
    })
    expect(create.status()).toBe(403)
    const site = await page.request.post('/api/v1/inboundsites', {
      headers: { 'x-csrf-token': csrfToken },
      data: { type: 'floor', name: 'Sneaky floor', parent: hq },
    })
    expect(site.status()).toBe(403)
    await context.close()
  })

  it('writes need the CSRF token; an idle session expires and the console asks to sign in again', async () => {
    const { context, page } = await h.open(DESKTOP)
    await signIn(page, clerk.email, clerk.password)
    const { csrfToken } = (await (await page.request.get('/console/api/session')).json()) as { csrfToken: string }
    const body = { package: { trackingNumber: 'CSRF-CHECK-0001' }, lastActivity: { status: 'RECEIVED' } }
    const none = await page.request.post('/api/v1/packages', { data: body })
    expect(none.status()).toBe(403)
    const wrong = await page.request.post('/api/v1/packages', {
      data: body,
      headers: { 'x-csrf-token': 'x'.repeat(43) },
    })
    expect(wrong.status()).toBe(403)
    const right = await page.request.post('/api/v1/packages', { data: body, headers: { 'x-csrf-token': csrfToken } })
    expect(right.status()).toBe(201)

    await page.getByRole('link', { name: 'Receive' }).click()
    await expectFocus(page, 'receive-scan')
    h.t.clock.advance((h.t.config.consoleSessions.idleMinutes + 1) * 60_000)
    await wedgeScan(page, UPS)
    await page.getByText('Your session has expired: sign in again.').waitFor()
    await expectAccessible(page, 'sign in (expired)')
    await screenshot(page, 'session-expired')
    expect((await page.request.get('/api/v1/packages/tracking/decode?trackingNumber=1')).status()).toBe(401)
    await page.getByLabel('Email').fill(clerk.email)
    await page.getByLabel('Password').fill(clerk.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Receive' }).waitFor()
    await context.close()
  })
})
