import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { DESKTOP, expectAccessible, signIn, useConsole } from './support.js'

// Issue 29 as an admin sets up texts in Chromium: the provider, its refusal named under the field,
// the channels; and a recipient's opt-in recorded with its source.

const h = useConsole()
let client: TestClient
let contactId: string
const admin = { email: 'admin@sms.example', password: 'admin password 123' }

beforeAll(async () => {
  client = await h.t.newClient('sms-settings')
  const a = api(h.t, client)
  contactId = await a.contact('RECEIVER', 'Tia Text', { phone: '+1 555 010 7777' })
  await createUser(h.t, client, { ...admin, role: 'admin' })
})

async function get(path: string) {
  const res = await h.t.inject({ method: 'GET', url: path, headers: client.auth })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

describe('texts in the console', () => {
  it('sets up a provider and channels, shows a refusal under its field, and records an opt-in', async () => {
    const { page } = await h.open(DESKTOP)
    await signIn(page, admin.email, admin.password)
    await page.goto('/console/admin/notifications')
    const form = page.getByRole('form', { name: 'Text messages (SMS)' })
    await form.waitFor()
    await form.getByLabel('Provider').selectOption('smpp')
    await form.getByLabel('URL').fill('https://smsc.example.com')
    await form.getByLabel('System id').fill('mailroom')
    await form.getByLabel('Password').fill('secret12')
    await form.getByLabel('Sender').fill('MAILROOM')
    await form.getByLabel('Text allowed').check()
    await form.getByRole('checkbox', { name: 'Arrival by Text' }).check()
    await form.getByRole('button', { name: 'Save text settings' }).click()
    const url = form.getByLabel('URL')
    await expect.poll(() => url.getAttribute('aria-invalid')).toBe('true')
    await url.fill('smpp://smsc.example.com:2775')
    await form.getByRole('button', { name: 'Save text settings' }).click()
    await form.getByText('Text settings saved.').waitFor()
    expect(await get('/api/v1/notifications/sms/settings')).toMatchObject({
      provider: 'smpp',
      url: 'smpp://smsc.example.com:2775',
      secretSet: true,
      channels: { allowed: ['email', 'sms'], defaults: { ARRIVAL: ['email', 'sms'] } },
    })
    await expectAccessible(page, 'admin notifications (texts)')

    const recipient = page.getByRole('region', { name: "A recipient's texts" })
    await recipient.getByLabel('Contact id').fill(contactId)
    await recipient.getByRole('button', { name: 'Show' }).click()
    await recipient.getByText('Not opted in.').waitFor()
    await recipient.getByLabel('Where consent was given').fill('signed form at the desk')
    await recipient.getByRole('button', { name: 'Record opt-in' }).click()
    await recipient.getByText(/Opted in .* \(signed form at the desk\)\./).waitFor()
    expect((await get(`/api/v1/notifications/recipients/${contactId}/channels`)).sms).toMatchObject({
      optedIn: true,
      source: 'signed form at the desk',
      phone: '+15550107777',
    })
  })
})
