import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { WEBHOOK_TEST_ENV } from '../webhooks/support/helpers.js'
import { Receiver } from '../webhooks/support/receiver.js'
import { DESKTOP, expectAccessible, screenshot, signIn, useConsole } from './support.js'

// Admin › Webhooks in Chromium: an admin creates a configuration, sends a test, reads the failed
// attempt in the delivery log and retries it once the receiver answers.

const h = useConsole(WEBHOOK_TEST_ENV)
const rx = new Receiver()
let client: TestClient
const admin = { email: 'admin@hooks.example', password: 'admin password 123' }

beforeAll(async () => {
  await rx.start()
  client = await h.t.newClient('hooks-desk')
  await createUser(h.t, client, { ...admin, role: 'admin' })
})
afterAll(() => rx.close())

describe('webhook configurations in the console', () => {
  it('creates one, shows its delivery log and retries a failed delivery', async () => {
    rx.respond = () => ({ status: 500, body: 'down' })
    const { context, page } = await h.open(DESKTOP)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/webhooks')
    await page.getByRole('heading', { name: 'Admin: Webhooks' }).waitFor()
    await page.getByLabel('Webhook name').fill('Front desk feed')
    await page.getByLabel('URL').fill(rx.url('/desk'))
    await page.getByRole('group', { name: 'Events' }).getByRole('checkbox').first().check()
    await page.getByRole('button', { name: 'Create webhook' }).click()
    await page.getByText(/Webhook Front desk feed created\. Its signing secret, shown once: whsec_/).waitFor()

    await page.getByRole('button', { name: 'Delivery log of Front desk feed' }).click()
    await page.getByRole('heading', { name: 'Delivery log of Front desk feed' }).waitFor()
    await page.getByRole('button', { name: 'Send a test' }).click()
    await page.getByText('Test notification queued.').waitFor()
    await h.t.ctx.webhooks.runOnce()
    expect(rx.requests.length).toBe(1)
    await page.getByRole('button', { name: 'Refresh the log' }).click()
    await page.getByRole('cell', { name: /500/ }).waitFor()
    await expectAccessible(page, 'admin webhooks')
    await screenshot(page, 'admin-webhooks')

    rx.respond = () => ({ status: 200, body: 'ok' })
    await page.getByRole('button', { name: /^Retry Ping / }).click()
    await page.getByText('Retry queued.').waitFor()
    await h.t.ctx.webhooks.runOnce()
    await page.getByRole('button', { name: 'Refresh the log' }).click()
    await page.getByRole('cell', { name: 'delivered', exact: true }).waitFor()
    expect(rx.requests.length).toBe(2)
    expect(rx.requests[1]!.headers['webhook-id']).toBe(rx.requests[0]!.headers['webhook-id'])
    expect(h.pageErrors).toEqual([])
    await context.close()
  })
})
