import { createServer, type AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { parseSsoCommand, runSsoCommand } from '../../src/app/cli/sso.js'
import { parseUsersCommand, runUsersCommand } from '../../src/app/cli/users.js'
import { buildTestApp, type TestApp, type TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js'
import { expectAccessible, launchChromium, screenshot, signIn } from './support.js'

// Issue 28.5 end to end: a real OpenID provider (node-oidc-provider) on a local port, the service on
// another, Chromium going from the console's sign-in page through the provider's login form and back.

/** A free local port: the public URL (and so the exact redirect URI) must be known before the app is built. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

let t: TestApp
let origin: string
let provider: TestProvider
let browser: Browser
let closeBrowser: () => Promise<void>
let client: TestClient
const pages: Page[] = []

beforeAll(async () => {
  const port = await freePort()
  origin = `http://127.0.0.1:${port}`
  t = await buildTestApp({
    MAILROOM_PUBLIC_URL: origin,
    MAILROOM_SSO_ALLOW_HTTP: 'true',
    MAILROOM_SSO_ALLOW_CIDRS: '127.0.0.0/8',
  })
  await t.app.listen({ host: '127.0.0.1', port })
  provider = await startTestProvider(`${origin}/console/api/sso/callback`)
  const launched = await launchChromium()
  browser = launched.browser
  closeBrowser = () => launched.close()
  client = await t.newClient('sso-browser')
  await createUser(t, client, { email: 'dana@acme.example', role: 'clerk', name: 'Dana Desk' })
  await createUser(t, client, { email: 'ada@acme.example', role: 'admin' })
  // The break-glass admin, made on the server: without one, password sign-in cannot be turned off.
  await runUsersCommand(
    t.ctx,
    parseUsersCommand(['create', '--subscription', 'sso-browser', '--email', 'glass@acme.example', '--role', 'admin']),
    () => {},
  )
  const gone = await createUser(t, client, { email: 'gone@acme.example', role: 'clerk' })
  await t.inject({
    method: 'PATCH',
    url: `/api/v1/users/${gone.userId}`,
    headers: client.auth,
    payload: { disabled: true },
  })
  // A user of another subscription whose email is of this one's domain: this provider never signs them in.
  const elsewhere = await t.newClient('sso-elsewhere')
  await createUser(t, elsewhere, { email: 'visitor@acme.example', role: 'admin' })
  // A user an admin created without a password: the generated one is void once the provider vouched for them.
  const fresh = await t.inject({
    method: 'POST',
    url: '/api/v1/users',
    headers: client.auth,
    payload: { email: 'fresh@acme.example', role: 'clerk' },
  })
  expect(fresh.json().user.mustChangePassword).toBe(true)
  provider.accounts.set('visitor', { email: 'visitor@acme.example', email_verified: true })
  provider.accounts.set('fresh', { email: 'fresh@acme.example', email_verified: true })
  provider.accounts.set('dana', { email: 'dana@acme.example', email_verified: true, name: 'Dana' })
  provider.accounts.set('ada', { email: 'ada@acme.example', email_verified: true })
  provider.accounts.set('newbie', { email: 'newbie@acme.example', email_verified: true })
  provider.accounts.set('unverified', { email: 'dana@acme.example', email_verified: false })
  provider.accounts.set('stranger', { email: 'stranger@acme.example', email_verified: true })
  provider.accounts.set('gone', { email: 'gone@acme.example', email_verified: true })
  await configure({})
}, 60_000)

afterEach(async (ctx) => {
  for (const page of pages.splice(0)) {
    if (ctx.task.result?.state === 'fail')
      await screenshot(page, `FAILED-sso-${ctx.task.name.slice(0, 30).replace(/\W+/g, '-')}`).catch(() => {})
    await page
      .context()
      .close()
      .catch(() => {})
  }
})

afterAll(async () => {
  await closeBrowser?.()
  await provider?.close()
  if (t) {
    t.app.server.closeAllConnections()
    await t.ctx.webhooks.close()
    t.ctx.notifications.close()
    await t.close()
  }
})

async function configure(over: Record<string, unknown>) {
  const res = await t.inject({
    method: 'PUT',
    url: '/api/v1/sso',
    headers: client.auth,
    payload: {
      enabled: true,
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      emailDomains: ['acme.example'],
      ...over,
    },
  })
  expect(res.statusCode, res.body).toBe(200)
  // The operator grants the domain (a claim alone starts nothing: docs/sso.md).
  await runSsoCommand(t.ctx, parseSsoCommand(['grant', 'acme.example', client.subId]), () => {})
}

async function open(): Promise<Page> {
  const context = await browser.newContext({ baseURL: origin, viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  pages.push(page)
  return page
}

/** From the console's sign-in page through the provider's login form (login picks the account, any password). */
async function singleSignOn(page: Page, email: string, login: string) {
  await page.goto('/console')
  await page.getByLabel('Email').fill(email)
  await page.getByRole('button', { name: 'Use single sign-on' }).click()
  await page.waitForURL((url) => url.origin === provider.issuer)
  await page.locator('input[name="login"]').fill(login)
  await page.locator('input[name="password"]').fill('anything at all')
  await page.locator('button[type="submit"]').click()
  await page.waitForURL((url) => url.origin === origin)
}

const whoAmI = (page: Page) =>
  page.evaluate(async () => {
    const res = await fetch('/console/api/session')
    return res.ok ? ((await res.json()) as { user: { email: string; role: string } }).user : null
  })

describe('single sign-on in Chromium', () => {
  it('signs an existing user in through the provider’s login form, into the console as themselves', async () => {
    const page = await open()
    await singleSignOn(page, 'dana@acme.example', 'dana')
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    expect(await whoAmI(page)).toMatchObject({ email: 'dana@acme.example', role: 'clerk' })
    // The flow cookie is spent.
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain('mailroom_sso')
    await screenshot(page, 'sso-signed-in')
  })

  it('knows a returning user by the provider’s id for them, not by the email it says today', async () => {
    // Dana signed in once (above): that identity is hers. Another account at the provider that
    // claims her email does not take her user over.
    provider.accounts.set('dana-impostor', { email: 'dana@acme.example', email_verified: true })
    const refused = await open()
    await singleSignOn(refused, 'dana@acme.example', 'dana-impostor')
    await expect
      .poll(() => refused.getByRole('alert').allTextContents())
      .toEqual([expect.stringContaining('signs in with another account at the identity provider')])
    expect(await whoAmI(refused)).toBeNull()
    // Her email changed at the provider: she is still herself in mailroom.
    provider.accounts.set('dana', { email: 'dana.renamed@acme.example', email_verified: true, name: 'Dana' })
    try {
      const page = await open()
      await singleSignOn(page, 'dana@acme.example', 'dana')
      await page.getByRole('button', { name: 'Sign out' }).waitFor()
      expect(await whoAmI(page)).toMatchObject({ email: 'dana@acme.example', role: 'clerk' })
    } finally {
      provider.accounts.set('dana', { email: 'dana@acme.example', email_verified: true, name: 'Dana' })
    }
  })

  it('signs in a user whose password was generated, with nothing to change first', async () => {
    const page = await open()
    await singleSignOn(page, 'fresh@acme.example', 'fresh')
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor()
    const session = await page.evaluate(
      async () => (await fetch('/console/api/session')).json() as Promise<{ mustChangePassword: boolean }>,
    )
    expect(session.mustChangePassword).toBe(false)
  })

  it('creates a new user with the default role when provisioning is on', async () => {
    await configure({ provisionUsers: true, defaultRole: 'clerk' })
    const page = await open()
    await singleSignOn(page, 'newbie@acme.example', 'newbie')
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    expect(await whoAmI(page)).toMatchObject({ email: 'newbie@acme.example', role: 'clerk' })
    const users = (await t.inject({ url: '/api/v1/users', headers: client.auth })).json().users
    expect(users).toContainEqual(
      expect.objectContaining({ email: 'newbie@acme.example', role: 'clerk', status: 'active' }),
    )
    await configure({ provisionUsers: false })
  })

  it('refuses an unverified email, an unknown one, a disabled user and another subscription’s user with a page that says why', async () => {
    for (const [email, login, says] of [
      ['dana@acme.example', 'unverified', 'does not say your email address is verified'],
      ['stranger@acme.example', 'stranger', 'There is no mailroom user with this email'],
      ['gone@acme.example', 'gone', 'Your mailroom user is disabled'],
      ['visitor@acme.example', 'visitor', 'This email belongs to a user of another organisation'],
    ] as const) {
      const page = await open()
      await singleSignOn(page, email, login)
      await expect.poll(() => page.getByRole('alert').allTextContents()).toEqual([expect.stringContaining(says)])
      // Taken out of the address: a reload does not repeat it.
      expect(new URL(page.url()).search).toBe('')
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor()
      expect(await whoAmI(page)).toBeNull()
      if (login === 'unverified') await expectAccessible(page, 'sign-in with a single sign-on refusal')
    }
    const page = await open()
    await page.goto('/console')
    await page.getByLabel('Email').fill('someone@nowhere.example')
    await page.getByRole('button', { name: 'Use single sign-on' }).click()
    await expect
      .poll(() => page.getByRole('alert').allTextContents())
      .toEqual([expect.stringContaining('Single sign-on is not set up for this email’s domain')])
  })

  it('with password sign-in off, refuses the password and lets the provider in', async () => {
    await configure({ passwordSignIn: false })
    try {
      const page = await open()
      await page.goto('/console')
      await page.getByLabel('Email').fill('dana@acme.example')
      await page.getByLabel('Password').fill('correct horse battery')
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await expect
        .poll(() => page.getByRole('alert').allTextContents())
        .toEqual([expect.stringContaining('Password sign-in is turned off')])
      await singleSignOn(page, 'dana@acme.example', 'dana')
      await page.getByRole('button', { name: 'Sign out' }).waitFor()
      expect(await whoAmI(page)).toMatchObject({ email: 'dana@acme.example' })
    } finally {
      await configure({ passwordSignIn: true })
    }
  })

  it('an admin signed in by the provider sets the settings in Admin › Single sign-on, by keyboard', async () => {
    const page = await open()
    await singleSignOn(page, 'ada@acme.example', 'ada')
    await page.getByRole('button', { name: 'Sign out' }).waitFor()
    await page.goto('/console/admin/sso')
    await page.getByRole('heading', { name: 'Admin: Single sign-on' }).waitFor()
    await page.getByText(`${origin}/console/api/sso/callback`).waitFor()
    await expect.poll(() => page.getByLabel('Client ID').inputValue()).toBe(provider.clientId)
    await expectAccessible(page, 'admin single sign-on')
    // Password sign-in off needs single sign-on on: the checkbox says so, and nothing is saved.
    await page.getByLabel('Offer single sign-on').uncheck()
    await page.getByLabel('Allow password sign-in').uncheck()
    await page.getByRole('button', { name: 'Save single sign-on settings' }).click()
    await expect
      .poll(() => page.getByLabel('Allow password sign-in').getAttribute('aria-describedby'))
      .toBe('sso-password-error')
    expect(await page.locator('#sso-password-error').textContent()).toContain('only while single sign-on is enabled')
    expect((await t.inject({ url: '/api/v1/sso', headers: client.auth })).json().enabled).toBe(true)
    await page.getByLabel('Offer single sign-on').check()
    await page.getByLabel('Allow password sign-in').check()
    // A field error names the field: an enabled configuration without domains.
    await page.getByLabel('Email domains').fill('')
    await page.getByLabel('Email domains').press('Enter')
    await expect.poll(() => page.getByLabel('Email domains').getAttribute('aria-invalid')).toBe('true')
    await expectAccessible(page, 'admin single sign-on with a field error')
    await page.getByLabel('Email domains').fill('acme.example, acme-staff.example')
    await page.getByLabel('Role of created users').selectOption('admin')
    await page.getByLabel('Create a user at the first sign-in').check()
    await page.getByRole('button', { name: 'Save single sign-on settings' }).focus()
    await page.keyboard.press('Enter')
    await expect
      .poll(() => page.getByRole('status').allTextContents())
      .toContainEqual(expect.stringContaining('Single sign-on settings saved.'))
    const saved = (await t.inject({ url: '/api/v1/sso', headers: client.auth })).json()
    // A domain just claimed is shown pending until the operator grants it.
    await expect
      .poll(() => page.getByRole('list', { name: 'Claims in force' }).textContent())
      .toContain('acme-staff.example: pending')
    expect(saved).toMatchObject({
      domainClaims: [
        { domain: 'acme-staff.example', status: 'pending' },
        { domain: 'acme.example', status: 'active' },
      ],
      emailDomains: ['acme-staff.example', 'acme.example'],
      provisionUsers: true,
      defaultRole: 'admin',
      clientSecret: `****${provider.clientSecret.slice(-4)}`,
    })
    await screenshot(page, 'sso-admin')
    await configure({})
  })

  it('keeps the password door for everyone else as before', async () => {
    const page = await open()
    await signIn(page, 'dana@acme.example', 'correct horse battery')
    expect(await whoAmI(page)).toMatchObject({ email: 'dana@acme.example' })
  })
})
